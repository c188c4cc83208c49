"""Hostile and unlucky input files: nothing lost, nothing hangs (defects 2–6)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from core.corpus.hostile import cap_issues
from core.importing import import_paths
from core.store.engine import Store, open_store

RULE = """id: R-{n}
status: active
when: {{trigger: "a push is rejected {n}"}}
do: {{directive: "fetch and rebase first"}}
confidence: 0.5
promoted_at: "2026-09-01"
provenance: {{source_trajectory: T-1, extracted_by: me, extract_timestamp: "2026-09-01"}}
"""


def _record(tid: str, task: str = "push the branch") -> str:
    return json.dumps({
        "trajectory_id": tid, "timestamp": "2026-09-01T00:00:00Z", "task": task,
        "steps": [{"step_number": 1, "tool": "bash", "input": "git push", "output": None, "error": "rejected"}],
        "success": False, "domain": "git", "failure_class": "git/push/rejected",
    })


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    opened = open_store(tmp_path / "store.sqlite")
    yield opened
    opened.close()


def _ids(store: Store) -> list[str]:
    connection = sqlite3.connect(store.path)
    try:
        return [r[0] for r in connection.execute("SELECT trajectory_id FROM trajectory ORDER BY trajectory_id")]
    finally:
        connection.close()


def _rule_refs(store: Store) -> list[str]:
    connection = sqlite3.connect(store.path)
    try:
        return [r[0] for r in connection.execute("SELECT rule_ref FROM rule ORDER BY rule_ref")]
    finally:
        connection.close()


def test_a_file_whose_records_failed_to_store_is_imported_again(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "root" / "failures"
    folder.mkdir(parents=True)
    (folder / "a.jsonl").write_text(_record("T-1") + "\n" + _record("T-2") + "\n")
    # A real failure between the file row and its records: the database refuses the insert.
    connection = sqlite3.connect(store.path)
    connection.execute("CREATE TRIGGER boom BEFORE INSERT ON trajectory BEGIN SELECT RAISE(ABORT, 'disk gone'); END")
    connection.commit()
    with pytest.raises(Exception, match="disk gone"):
        import_paths(store, [tmp_path / "root"])
    connection.execute("DROP TRIGGER boom")
    connection.commit()
    connection.close()
    import_paths(store, [tmp_path / "root"])
    assert _ids(store) == ["T-1", "T-2"]


def test_a_lone_surrogate_is_one_bad_record_and_its_neighbour_is_kept(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "root" / "failures"
    folder.mkdir(parents=True)
    bad = _record("T-2", task="push \ud800 the branch")  # json.dumps writes the \\ud800 escape
    (folder / "a.jsonl").write_text(_record("T-1") + "\n" + bad + "\n")
    summary = import_paths(store, [tmp_path / "root"])
    assert [(i.file, i.line, i.field) for i in summary.issues] == [("failures/a.jsonl", 2, "task")]
    assert "surrogate" in summary.issues[0].reason
    import_paths(store, [tmp_path / "root"])
    assert _ids(store) == ["T-1"]


def test_a_rule_file_with_a_lone_surrogate_is_reported_and_other_rules_kept(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "root" / "rules"
    folder.mkdir(parents=True)
    (folder / "R-1.yaml").write_text(RULE.format(n=1))
    (folder / "R-2.yaml").write_text(RULE.format(n=2).replace("first", 'first \\ud800'))
    summary = import_paths(store, [tmp_path / "root"])
    # libyaml refuses the escape while parsing, at its line and column.
    assert [(i.file, i.line) for i in summary.issues] == [("rules/R-2.yaml", 4)]
    assert "invalid Unicode character escape" in summary.issues[0].reason
    assert _rule_refs(store) == ["R-1"]


def test_a_surrogate_reaching_a_parsed_rule_is_reported_with_its_field() -> None:
    from core.corpus import rules

    # The pure-Python loader (used where libyaml is missing) accepts the escape; the reader
    # must still refuse the value, naming the field.
    loader = rules._LOADER
    rules._LOADER = rules.yaml.SafeLoader
    try:
        result = rules.read_rule_bytes(RULE.format(n=2).replace("first", "first \\ud800").encode(), "R-2.yaml")
    finally:
        rules._LOADER = loader
    assert [(i.line, i.field) for i in result.issues] == [(4, "do.directive")]
    assert "surrogate" in result.issues[0].reason


BOMB = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)]
) + "\n"


@pytest.mark.parametrize("content, phrase", [
    (BOMB, "alias bomb"),
    (RULE.format(n=3) + "extra: &a [*a]\n", "recursive YAML alias"),
])
def test_alias_bombs_and_recursive_aliases_are_refused_quickly(
    tmp_path: Path, store: Store, content: str, phrase: str
) -> None:
    folder = tmp_path / "root" / "rules"
    folder.mkdir(parents=True)
    (folder / "R-1.yaml").write_text(RULE.format(n=1))
    (folder / "R-9.yaml").write_text(content)
    summary = import_paths(store, [tmp_path / "root"])  # an expanded bomb would not return at all
    assert len(summary.issues) == 1 and phrase in summary.issues[0].reason
    assert _rule_refs(store) == ["R-1"]


def test_a_huge_bad_field_is_one_issue(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "root" / "rules"
    folder.mkdir(parents=True)
    (folder / "R-1.yaml").write_text(RULE.format(n=1) + f'outcome_trend: "{"x" * 1_000_000}"\n')
    summary = import_paths(store, [tmp_path / "root"])
    assert len(summary.issues) == 1
    assert summary.issues[0].field == "outcome_trend[0]" and "999,999 more" in summary.issues[0].reason


def test_issues_past_the_cap_become_one_and_n_more_line() -> None:
    capped = cap_issues(list(range(250)), lambda n: f"… and {n} more", limit=100)
    assert capped[:100] == list(range(100)) and capped[100:] == ["… and 150 more"]


def test_special_files_are_reported_and_skipped_without_hanging(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "root" / "failures"
    folder.mkdir(parents=True)
    (folder / "good.jsonl").write_text(_record("T-1") + "\n")
    (folder / "broken.jsonl").symlink_to(folder / "missing.jsonl")
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    os.mkfifo(folder / "fifo.jsonl")
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    (folder / "big.jsonl").write_text(_record("T-9") * 100)
    summary = import_paths(store, [tmp_path / "root"], max_file_bytes=5000)
    reasons = {i.file: i.reason for i in summary.issues}
    assert "broken symbolic link" in reasons["failures/broken.jsonl"]
    assert "cannot be read" in reasons["failures/loop.jsonl"]
    assert "named pipe" in reasons["failures/fifo.jsonl"]
    assert "a device" in reasons["failures/zero.jsonl"]
    assert "limit" in reasons["failures/big.jsonl"]
    assert _ids(store) == ["T-1"]


def test_a_file_name_that_is_not_utf8_is_reported_escaped(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "root" / "failures"
    folder.mkdir(parents=True)
    (folder / "good.jsonl").write_text(_record("T-1") + "\n")
    with open(os.path.join(os.fsencode(folder), b"bad\xff.jsonl"), "wb") as handle:
        handle.write((_record("T-2") + "\n").encode())
    summary = import_paths(store, [tmp_path / "root"])
    assert [(i.file, i.line) for i in summary.issues] == [("failures/bad\\udcff.jsonl", None)]
    assert "not valid UTF-8" in summary.issues[0].reason
    assert _ids(store) == ["T-1"]


def test_rules_at_the_same_path_under_two_roots_stay_two_rules(tmp_path: Path, store: Store) -> None:
    for team in ("teamA", "teamB"):
        (tmp_path / team).mkdir()
        (tmp_path / team / "R-1.yaml").write_text(RULE.format(n=1).replace("rejected 1", f"rejected by {team}"))
    first = import_paths(store, [tmp_path / "teamA"])
    second = import_paths(store, [tmp_path / "teamB"])
    assert first.rules_imported == 1 and second.rules_imported == 1
    assert any("corpus teamA already has a rule at R-1.yaml" in n for n in second.notes)
    again = import_paths(store, [tmp_path / "teamB"])
    assert again.rules_imported == 0 and not again.notes
    connection = sqlite3.connect(store.path)
    rows = connection.execute(
        "SELECT r.origin, c.name, (SELECT count(*) FROM rule_version v WHERE v.rule_id = r.id) "
        "FROM rule r JOIN corpus c ON c.id = r.corpus_id ORDER BY r.id"
    ).fetchall()
    connection.close()
    assert rows == [("R-1.yaml", "teamA", 1), ("teamB:R-1.yaml", "teamB", 1)]


def test_a_big_plain_yaml_file_is_refused_by_its_size_not_called_an_alias_bomb() -> None:
    from core.corpus.hostile import MAX_YAML_NODES
    from core.corpus.rules import read_rule_bytes

    # Many plain rules in one file, no alias anywhere: 5 values each, past the limit.
    count = MAX_YAML_NODES // 4
    content = "".join(f"- id: R-{i}\n  trigger: when {i}\n" for i in range(count)).encode()
    [issue] = read_rule_bytes(content, "many.yaml").issues
    assert f"over the {MAX_YAML_NODES:,}-value limit for one rule file" in issue.reason
    assert "alias" not in issue.reason
