"""Rules with the same trigger and directive form one group."""

from __future__ import annotations

import json
from pathlib import Path

from core.importing import import_paths
from core.replaying import materialise_expected_rules
from core.rule_duplicates import duplicate_key, store_duplicate_groups
from core.store.engine import open_store
from core.store.rule_repo import RuleRepository


def test_case_and_spacing_do_not_split_a_group_but_words_do() -> None:
    assert duplicate_key("When git  push fails", "Pull first") == duplicate_key("when git push fails", "pull first")
    assert duplicate_key("when git push fails", "pull first") != duplicate_key("when git push fails", "rebase first")


def test_expected_rule_copies_of_one_sentence_are_grouped(tmp_path: Path, demo_corpus: Path,
                                                         store_location: Path | str) -> None:
    line = (demo_corpus / "failures" / "api.jsonl").read_text(encoding="utf-8").splitlines()[0]
    record = json.loads(line)
    assert record.get("expected_rule")
    copies = []
    for suffix in ("a", "b", "c"):
        copy = dict(record, trajectory_id=f"{record['trajectory_id']}-{suffix}", id=f"{record['id']}-{suffix}")
        copies.append(json.dumps(copy))
    other = dict(record, trajectory_id="DF-OTHER", id="DF-OTHER", expected_rule="when a deploy hangs, check the probe")
    folder = tmp_path / "corpus" / "failures"
    folder.mkdir(parents=True)
    (folder / "copies.jsonl").write_text("\n".join([*copies, json.dumps(other)]) + "\n", encoding="utf-8")
    store = open_store(store_location)  # on each back end
    try:
        import_paths(store, [tmp_path / "corpus"])
        materialise_expected_rules(store)
        rules = {r.id: r for r in RuleRepository(store).list_rules()}
        groups = store_duplicate_groups(store)
        assert len(rules) == 4
        (members,) = set(groups.values())
        assert len(members) == 3
        assert {rules[m].source_trajectory for m in members} == {json.loads(c)["trajectory_id"] for c in copies}
        lone = next(r for r in rules if r not in members)
        assert lone not in groups
    finally:
        store.close()
