"""``publish`` into a real rule store (issue 28): dry run, confirmation, audit, lock, git.

The store and the rule folder come from the kill drill's fixture (tests/drills/publish_kills.py):
R-001..R-003 imported, a candidate approved as R-004, R-001 retired in the Workbench. The
round trip against the reference itself is tests/external/test_publish_interop.py.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cli import main
from core.publish.lock import PublishLockTimeout, publish_lock
from core.publish.plan import PublishRefused
from core.publish.service import preview, publish
from core.store.engine import Store, open_store
from core.store.review_repo import ReviewRepository

from tests.drills.publish_kills import _fresh, build_fixture

# Builder trajectories all have the task "t": the approved rule fires on no task (gate tested below).
ACK = ["R-004"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_fixture(tmp_path_factory.mktemp("publish-template"))


@pytest.fixture()
def fixture(template: tuple[Path, Path], tmp_path: Path) -> Iterator[tuple[Store, Path, Path]]:
    database, rules = _fresh(tmp_path / "work", *template)
    store = open_store(database)
    yield store, database, rules
    store.close()


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_dry_run_lists_added_changed_and_left_alone_and_writes_nothing(fixture, capsys) -> None:  # type: ignore[no-untyped-def]
    _store, database, rules = fixture
    before = tree(rules)

    code = main(["publish", "--store", str(database), "--to", str(rules), "--dry-run"])

    out = capsys.readouterr().out
    assert code == 0
    assert "added (1):\n  R-004.yaml  new rule, active: when='when terraform state lock is held'" in out
    assert "changed (2):\n  R-001.yaml  active → retired (too broad)" in out
    assert "    -status: active\n    +status: retired" in out
    assert "left alone (2): R-002.yaml, R-003.yaml" in out
    assert tree(rules) == before


def test_without_yes_nothing_is_written(fixture, capsys) -> None:  # type: ignore[no-untyped-def]
    _store, database, rules = fixture
    before = tree(rules)
    assert main(["publish", "--store", str(database), "--to", str(rules)]) == 2
    assert "run again with --yes" in capsys.readouterr().err
    assert tree(rules) == before


def test_a_publish_is_recorded_in_the_audit_log_with_the_target_and_the_ids(fixture) -> None:  # type: ignore[no-untyped-def]
    store, _database, rules = fixture
    publish(store, rules, "ana", acknowledge_no_task=ACK)
    [event] = ReviewRepository(store).audit(target_kind="rule_store")
    assert (event.actor, event.action, event.target_id) == ("ana", "publish", str(rules.absolute()))
    assert event.after["ids"] == ["R-004", "R-001"] and event.after["target"] == str(rules.absolute())


def test_a_folder_never_imported_is_refused_in_one_line(fixture, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _store, database, rules = fixture
    other = tmp_path / "other"
    shutil.copytree(rules, other)
    assert main(["publish", "--store", str(database), "--to", str(other), "--yes"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("refused: ") and "was never imported" in err and err.count("\n") == 1


def test_a_change_on_disk_is_refused_on_the_command_line_with_the_file(fixture, capsys) -> None:  # type: ignore[no-untyped-def]
    _store, database, rules = fixture
    (rules / "R-009.yaml").write_text((rules / "R-003.yaml").read_text().replace("R-003", "R-009"))
    assert main(["publish", "--store", str(database), "--to", str(rules), "--yes"]) == 1
    assert "changed on disk since it was imported (added: R-009.yaml)" in capsys.readouterr().err
    assert not (rules / "R-004.yaml").exists()


def test_a_second_publish_to_the_same_folder_waits_for_the_lock(fixture) -> None:  # type: ignore[no-untyped-def]
    _store, _database, rules = fixture
    with publish_lock(rules):
        with pytest.raises(PublishLockTimeout, match="another publish"):
            with publish_lock(rules, wait_seconds=0.1):
                pass
    with publish_lock(rules, wait_seconds=0.1):  # released when the first one ended
        pass


def test_the_replaced_files_are_kept_until_the_next_publish(fixture) -> None:  # type: ignore[no-untyped-def]
    store, _database, rules = fixture
    old_r001 = (rules / "R-001.yaml").read_bytes()
    first = publish(store, rules, "ana", acknowledge_no_task=ACK)
    assert first.backup is not None and (first.backup / "R-001.yaml").read_bytes() == old_r001
    from core.promotion import retire

    retire(store, "R-002", "ana", "superseded by practice")
    old_r002 = (rules / "R-002.yaml").read_bytes()
    second = publish(store, rules, "ana", acknowledge_no_task=ACK)
    assert second.backup == first.backup
    assert sorted(p.name for p in second.backup.iterdir()) == ["R-002.yaml", "index.yaml"]
    assert (second.backup / "R-002.yaml").read_bytes() == old_r002


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture()
def in_git(fixture):  # type: ignore[no-untyped-def]
    store, database, rules = fixture
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = rules.parent
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "add", "rules")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "rules")
    return store, database, rules


def test_in_a_git_work_tree_the_change_is_left_uncommitted(in_git) -> None:  # type: ignore[no-untyped-def]
    store, _database, rules = in_git
    result = publish(store, rules, "ana", acknowledge_no_task=ACK)
    assert "left as an uncommitted change" in result.git
    status = _git(rules.parent, "status", "--porcelain", "--", "rules")
    assert " M rules/R-001.yaml" in status and "?? rules/R-004.yaml" in status


def test_in_a_git_work_tree_the_change_is_committed_when_asked(in_git, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    store, _database, rules = in_git
    for key, value in (("GIT_AUTHOR_NAME", "ana"), ("GIT_AUTHOR_EMAIL", "ana@example.org"),
                       ("GIT_COMMITTER_NAME", "ana"), ("GIT_COMMITTER_EMAIL", "ana@example.org")):
        monkeypatch.setenv(key, value)
    result = publish(store, rules, "ana", acknowledge_no_task=ACK, commit_message="publish R-004, retire R-001")
    assert "committed as" in result.git
    assert _git(rules.parent, "status", "--porcelain", "--", "rules") == ""
    assert _git(rules.parent, "log", "-1", "--format=%s") == "publish R-004, retire R-001\n"
    assert "rules/R-004.yaml" in _git(rules.parent, "show", "--name-only", "--format=", "HEAD")


def test_the_dry_run_json_carries_each_diff(fixture, capsys) -> None:  # type: ignore[no-untyped-def]
    _store, database, rules = fixture
    assert main(["publish", "--store", str(database), "--to", str(rules), "--dry-run", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [a["id"] for a in doc["added"]] == ["R-004"] and doc["written"] is False
    assert "+retirement_reason: too broad" in doc["changed"][0]["diff"]


def test_preview_refuses_a_changed_store_unless_accepted(fixture) -> None:  # type: ignore[no-untyped-def]
    store, _database, rules = fixture
    (rules / "R-002.yaml").write_text((rules / "R-002.yaml").read_text() + "# edited by hand\n")
    with pytest.raises(PublishRefused, match=r"modified: R-002.yaml"):
        preview(store, rules)
    assert preview(store, rules, accept_changes=True).disk_change == "modified: R-002.yaml"


def test_a_new_rule_that_fires_on_no_task_needs_an_acknowledgement_recorded_in_the_audit_log(fixture) -> None:  # type: ignore[no-untyped-def]
    store, _database, rules = fixture
    before = tree(rules)
    assert preview(store, rules).plan.no_task == ("R-004",)
    with pytest.raises(PublishRefused, match=r"R-004 fires at injection on no task.*--acknowledge-no-task R-004"):
        publish(store, rules, "ana")
    assert tree(rules) == before

    publish(store, rules, "ana", acknowledge_no_task=["R-004"])

    [event] = ReviewRepository(store).audit(target_kind="rule_store")
    assert event.after["acknowledgement"] == ["ana acknowledged: R-004 fires at injection on no task"]


def test_a_new_rule_whose_trigger_is_in_a_task_needs_no_acknowledgement(fixture) -> None:  # type: ignore[no-untyped-def]
    store, _database, rules = fixture
    from core.store.corpus_repo import CorpusRepository

    corpora = CorpusRepository(store)
    corpus = corpora.ensure_corpus("tasks", "extraction", "folder")
    file_id = corpora.upsert_file(corpus, "tasks/a.jsonl", "trajectories", "h2", 1)
    corpora.apply_file_changes(file_id, [dict(corpus_id=corpus, line=1, end_line=1, trajectory_id="T-9", success=False,
                                              task="plan the infra when terraform state lock is held by CI",
                                              raw_text="{}", record_json="{}", content_hash="T-9")], [], [])
    assert preview(store, rules).plan.no_task == ()
    assert publish(store, rules, "ana").written


def test_an_import_records_each_rule_store_folder_with_its_archive_and_packs(tmp_path: Path) -> None:
    from core.importing import import_paths
    from core.publish import snapshot

    from tests.drills.publish_kills import RULE

    root = tmp_path / "team"
    store_dir = root / "rules"
    for rel, rid in (("R-001.yaml", "R-001"), ("archived/R-002.yaml", "R-002"), ("node/P-001.yaml", "P-001")):
        (store_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (store_dir / rel).write_text(RULE.format(id=rid, trigger="when x fails", directive="do y"), encoding="utf-8")
    (store_dir / "index.yaml").write_text("rules: []\n", encoding="utf-8")
    store = open_store(tmp_path / "s.sqlite")
    try:
        import_paths(store, [root])
        recorded = snapshot.load(store, store_dir)
        assert recorded is not None
        assert sorted(recorded.files) == ["R-001.yaml", "archived/R-002.yaml", "index.yaml", "node/P-001.yaml"]
        assert sorted(recorded.owners) == ["R-001.yaml", "archived/R-002.yaml", "node/P-001.yaml"]
        assert snapshot.load(store, store_dir / "archived") is None  # part of its store, not a store
    finally:
        store.close()
