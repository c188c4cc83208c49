"""Publish into a rule store the reference wrote, then let the reference read it (issue 28).

Round trip: a store made by ``cauterule`` 0.3.1 is imported, one candidate is approved, one
imported rule is retired and one superseded, and the Workbench publishes; the reference then
validates the store with no warning, lists the old rules, the new one active and the retired
one retired, and every file the publish did not change is byte-identical. The rewritten files
equal what the reference's own ``retire_rule`` / ``supersede_rule`` write (but the time).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_promotion_support import Builder  # noqa: E402

cauterule = pytest.importorskip("cauterule")
from cauterule.models.candidate import CandidateRule  # noqa: E402
from cauterule.models.rule import RuleDo, RuleWhen  # noqa: E402
from cauterule.store.index import IndexManager  # noqa: E402
from cauterule.store.manager import StoreManager  # noqa: E402
from cauterule.store.validator import validate_store  # noqa: E402

from core.importing import import_paths  # noqa: E402
from core.promotion import approve, retire, supersede  # noqa: E402
from core.publish.plan import PublishRefused  # noqa: E402
from core.publish.service import backup_path, preview, publish  # noqa: E402
from core.store.engine import Store, open_store  # noqa: E402

# Builder trajectories all have the task "t": the approved rule fires on no task (that gate: tests/core/test_publish.py).
ACK = ["R-005"]


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "s.sqlite")
    yield opened
    opened.close()


@pytest.fixture(autouse=True)
def _no_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference commits to git after each write; never let it near a real repository."""
    import cauterule.promotion.executor as executor
    import cauterule.store.git as git

    monkeypatch.setattr(git, "git_commit", lambda *a, **k: None)
    monkeypatch.setattr(executor, "git_commit", lambda *a, **k: None)


def reference_store(root: Path) -> Path:
    """Three active rules and one archived, written by the reference itself."""
    from cauterule.promotion.executor import execute_promotion
    from cauterule.store.archive import archive_rule

    rules = root / "rules"
    config = {"rules_dir": str(rules), "source_trajectory": "T-1", "extracted_by": "gpt",
              "extract_timestamp": "2026-09-10T10:00:00+00:00", "extraction_pass": 2, "promotion_mode": "human",
              "taxonomy": "other"}
    for trigger, directive in [("when git push is rejected as non-fast-forward", "pull --rebase first"),
                               ("when pytest cannot import a module", "install the package in the venv"),
                               ("when the docker daemon socket is denied", "add the user to the docker group"),
                               ("when npm ci fails with ERESOLVE", "fix the peer range")]:
        execute_promotion(CandidateRule(RuleWhen(trigger, ("ci",)), RuleDo(directive, "because it works"), 0.8),
                          config)
    StoreManager(str(rules)).retire_rule("R-004", "stale")
    archive_rule("R-004", str(rules))
    return rules


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def approve_candidate(store: Store) -> int:
    b = Builder(store)
    b.trajectories("F-1", "F-2")
    rule = b.rule("c/new.yaml", "when terraform state lock is held", "wait for the lock, then retry plan")
    run = b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})])
    approve(store, rule, run, "ana", "reviewed")
    return rule


def test_round_trip_with_the_reference(store: Store, tmp_path: Path) -> None:
    rules = reference_store(tmp_path)
    import_paths(store, [rules])
    approve_candidate(store)  # gets R-005: above every id in the store, archived R-004 included
    retire(store, "R-001", "ana", "too broad")
    supersede(store, "R-002", "R-005", "ana", "narrower")
    before = tree(rules)

    result = publish(store, rules, "ana", acknowledge_no_task=ACK)

    assert [c.path for c in result.plan.added] == ["R-005.yaml"]
    assert sorted(c.path for c in result.plan.changed) == ["R-001.yaml", "R-002.yaml", "index.yaml"]
    assert validate_store(str(rules)) == []
    listed = {r.id: r.status for r in StoreManager(str(rules)).list_rules()}
    # The reference does not list archived/ (R-004); the archived file stays as it was.
    assert listed == {"R-001": "retired", "R-002": "superseded", "R-003": "active", "R-005": "active"}
    after = tree(rules)
    for untouched in ("R-003.yaml", "archived/R-004.yaml"):
        assert after[untouched] == before[untouched]
    assert set(after) == set(before) | {"R-005.yaml"}
    assert (backup_path(rules) / "R-001.yaml").read_bytes() != (rules / "R-001.yaml").read_bytes()


def test_rewritten_files_equal_what_the_reference_writes(store: Store, tmp_path: Path) -> None:
    rules = reference_store(tmp_path)
    theirs = tmp_path / "theirs"
    shutil.copytree(rules, theirs)
    import_paths(store, [rules])
    approve_candidate(store)
    retire(store, "R-001", "ana", "too broad")
    supersede(store, "R-002", "R-005", "ana", "narrower")
    publish(store, rules, "ana", acknowledge_no_task=ACK)
    shutil.copy(rules / "R-005.yaml", theirs / "R-005.yaml")
    manager = StoreManager(str(theirs))
    IndexManager(str(theirs)).update_entry(manager.get_rule("R-005"))  # type: ignore[arg-type]  # as a promotion does
    manager.retire_rule("R-001", "too broad")
    manager.supersede_rule("R-002", "R-005")

    def without_time(path: Path) -> dict[str, object]:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        data.pop("retired_at")
        return data

    for name in ("R-001.yaml", "R-002.yaml"):
        assert list(yaml.safe_load((rules / name).read_text(encoding="utf-8"))) == \
            list(yaml.safe_load((theirs / name).read_text(encoding="utf-8")))  # key order too
        assert without_time(rules / name) == without_time(theirs / name)
    ours = yaml.safe_load((rules / "index.yaml").read_text(encoding="utf-8"))
    reference = yaml.safe_load((theirs / "index.yaml").read_text(encoding="utf-8"))
    assert ours == reference


def test_a_store_changed_on_disk_since_import_is_refused_with_what_changed(store: Store, tmp_path: Path) -> None:
    rules = reference_store(tmp_path)
    import_paths(store, [rules])
    approve_candidate(store)
    StoreManager(str(rules)).retire_rule("R-003", "someone else did")
    before = tree(rules)

    with pytest.raises(PublishRefused, match=r"changed on disk since it was imported \(modified: R-003.yaml, "
                                             r"index.yaml\)"):
        publish(store, rules, "ana", acknowledge_no_task=ACK)
    with pytest.raises(PublishRefused, match="R-003.yaml"):
        preview(store, rules)
    assert tree(rules) == before


def test_the_reviewer_may_publish_over_a_change_explicitly(store: Store, tmp_path: Path) -> None:
    rules = reference_store(tmp_path)
    import_paths(store, [rules])
    approve_candidate(store)
    StoreManager(str(rules)).retire_rule("R-003", "someone else did")

    result = publish(store, rules, "ana", acknowledge_no_task=ACK, accept_changes=True)

    assert result.disk_change.startswith("modified: R-003.yaml")
    assert validate_store(str(rules)) == []
    assert StoreManager(str(rules)).get_rule("R-003").status == "retired"  # type: ignore[union-attr]


def test_a_second_publish_with_nothing_new_writes_nothing(store: Store, tmp_path: Path) -> None:
    rules = reference_store(tmp_path)
    import_paths(store, [rules])
    approve_candidate(store)
    retire(store, "R-001", "ana", "too broad")  # its file no longer has the bytes it was imported with
    publish(store, rules, "ana", acknowledge_no_task=ACK)
    before = tree(rules)

    again = publish(store, rules, "ana", acknowledge_no_task=ACK)

    assert again.plan.empty and not again.written
    assert tree(rules) == before


def test_a_rule_retired_after_its_publish_is_retired_in_the_store(store: Store, tmp_path: Path) -> None:
    rules = reference_store(tmp_path)
    import_paths(store, [rules])
    approve_candidate(store)
    publish(store, rules, "ana", acknowledge_no_task=ACK)
    retire(store, "R-005", "ana", "replaced by a narrower rule")

    result = publish(store, rules, "ana", acknowledge_no_task=ACK)

    assert [(c.path, c.what) for c in result.plan.changed][0] == ("R-005.yaml",
                                                                 "active → retired (replaced by a narrower rule)")
    assert StoreManager(str(rules)).get_rule("R-005").status == "retired"  # type: ignore[union-attr]
    assert validate_store(str(rules)) == []


def test_export_all_writes_the_complete_set_for_a_fresh_folder(store: Store, tmp_path: Path) -> None:
    from core.export.rule_store import export_rule_store

    rules = reference_store(tmp_path)
    import_paths(store, [rules])
    approve_candidate(store)
    retire(store, "R-001", "ana", "too broad")
    out = tmp_path / "fresh"

    only_promotions = export_rule_store(store, tmp_path / "promotions-only")
    result = export_rule_store(store, out, include_imported=True)

    assert only_promotions.rules == 2  # R-005 and the retired R-001: the "only R-004" export
    assert validate_store(str(out)) == []
    listed = {r.id: r.status for r in StoreManager(str(out)).list_rules()}
    assert listed == {"R-001": "retired", "R-002": "active", "R-003": "active", "R-004": "retired", "R-005": "active"}
    assert result.rules == 5
    assert yaml.safe_load((out / "R-003.yaml").read_text()) == yaml.safe_load((rules / "R-003.yaml").read_text())
