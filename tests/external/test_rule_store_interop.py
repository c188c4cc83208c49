"""Rule stores cross both ways between the Workbench and ``cauterule`` 0.3.1.

* A store exported here passes the reference's own validation (``cauterule validate`` =
  ``store.validator.validate_store``), loads strictly with ``load_rules_from_dir`` and with
  its ``StoreManager``, and its ``index.yaml`` loads with ``IndexManager``.
* A store the reference wrote (``execute_promotion``, ``StoreManager``, ``archive_rule``)
  imports here with every field kept, read-only: a malformed file is reported, left where it
  is, byte for byte, and no ``.quarantine/`` appears.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_promotion_support import Builder  # noqa: E402

cauterule = pytest.importorskip("cauterule")
from cauterule.models.candidate import CandidateRule  # noqa: E402
from cauterule.models.rule import Provenance, ReplayEvidence, RuleDo, RuleWhen, StandingRule  # noqa: E402
from cauterule.serialization.rule_yaml import load_rules_from_dir  # noqa: E402
from cauterule.store.index import IndexManager  # noqa: E402
from cauterule.store.manager import StoreManager  # noqa: E402
from cauterule.store.validator import validate_store  # noqa: E402

from core.export.rule_store import export_rule_store  # noqa: E402
from core.importing import import_paths  # noqa: E402
from core.promotion import approve, retire, supersede  # noqa: E402
from core.store.engine import Store, open_store  # noqa: E402
from core.store.rule_repo import RuleRepository  # noqa: E402


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
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


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_exported_store_passes_the_reference_validation_and_loads(store: Store, tmp_path: Path) -> None:
    b = Builder(store)
    b.trajectories("F-1", "F-2")
    rules = [
        b.rule("c/a.yaml", "when git push is rejected as non-fast-forward", "pull --rebase, then push"),
        b.rule("c/b.yaml", "when the pod is OOMKilled — exit 137", "raise the memory limit"),
        b.rule("c/c.yaml", "when the pod is OOM-killed", "raise the memory limit by 25 %"),
    ]
    run = b.run([(r, "pass", {"prevented": ["F-1", "F-2"]}) for r in rules])
    for r in rules:
        approve(store, r, run, "ana", "reviewed")
    retire(store, "R-001", "ana", "too broad")
    supersede(store, "R-002", "R-003", "ana", "narrower")
    out = tmp_path / "rules"
    export_rule_store(store, out)

    assert validate_store(str(out)) == []
    loaded = {r.id: r for r in load_rules_from_dir(out, strict=True, quarantine=False)}
    assert set(loaded) == {"R-001", "R-002", "R-003"}
    assert loaded["R-002"].status == "superseded" and loaded["R-002"].superseded_by == "R-003"
    assert loaded["R-001"].retirement_reason == "too broad"
    assert loaded["R-002"].when.trigger == "when the pod is OOMKilled — exit 137"
    assert loaded["R-003"].provenance.replay_evidence == ReplayEvidence(("F-1", "F-2"), (), 1.0, 0.5)
    before = _tree(out)
    manager = StoreManager(str(out))
    assert {r.id for r in manager.list_rules(status="active")} == {"R-003"}
    assert _tree(out) == before  # nothing was quarantined or rewritten
    assert [e["id"] for e in IndexManager(str(out)).load_index()["rules"]] == ["R-001", "R-002", "R-003"]
    # The reference can keep managing the exported store.
    manager.retire_rule("R-003", "handed over")
    assert manager.get_rule("R-003").status == "retired"  # type: ignore[union-attr]


def _reference_store(root: Path) -> Path:
    rules = root / "rules"
    config = {"rules_dir": str(rules), "source_trajectory": "T-1", "extracted_by": "gpt",
              "extract_timestamp": "2026-09-10T10:00:00+00:00", "extraction_pass": 2, "promotion_mode": "human",
              "taxonomy": "other"}
    for trigger, directive in [("when git push is rejected as non-fast-forward", "pull --rebase first"),
                               ("when pytest cannot import a module", "install the package in the venv"),
                               ("when the docker daemon socket is denied", "add the user to the docker group")]:
        candidate = CandidateRule(RuleWhen(trigger, ("ci",)), RuleDo(directive, "because it works"), 0.8)
        from cauterule.promotion.executor import execute_promotion

        execute_promotion(candidate, config)
    manager = StoreManager(str(rules))
    manager.retire_rule("R-002", "stale")
    manager.supersede_rule("R-001", "R-003")
    from cauterule.store.archive import archive_rule

    archive_rule("R-002", str(rules))
    pack_rule = StandingRule(
        id="P-001", when=RuleWhen("when npm ci fails with ERESOLVE", signature="npm ERR! ERESOLVE"),
        do=RuleDo("use --legacy-peer-deps once, then fix the peer range"), confidence=0.7,
        provenance=Provenance("T-9", "human", "2026-09-11T00:00:00Z", 1,
                              replay_evidence=ReplayEvidence(("T-9",), (), 1.0, 0.2), promotion_mode="human"),
        status="active", promoted_at="2026-09-11T00:00:00Z", tags=("npm", "ünïcode"), pack="node",
    )
    StoreManager(str(rules / "node")).add_rule(pack_rule)
    return rules


def test_reference_written_store_imports_with_every_field_kept(store: Store, tmp_path: Path) -> None:
    rules = _reference_store(tmp_path)
    summary = import_paths(store, [rules])
    assert summary.issues == ()
    imported = {r.origin: r for r in RuleRepository(store).list_rules()}
    on_disk = {p.relative_to(rules).as_posix(): p for p in rules.rglob("*.yaml") if p.name != "index.yaml"}
    assert set(on_disk) == {"R-001.yaml", "R-003.yaml", "archived/R-002.yaml", "node/P-001.yaml"}
    assert set(imported) == set(on_disk)  # index.yaml is a catalog, not a rule
    for origin, path in on_disk.items():
        from core.store.promotion_repo import PromotionRepository

        mapping = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert PromotionRepository(store).rule_data(imported[origin].id) == json.loads(json.dumps(mapping))
    assert imported["R-001.yaml"].status == "superseded" and imported["R-001.yaml"].rule_ref == "R-001"
    assert imported["archived/R-002.yaml"].status == "retired"
    assert imported["node/P-001.yaml"].latest.signature == "npm ERR! ERESOLVE"
    assert imported["R-003.yaml"].latest.context == ("ci",)


def test_import_is_read_only_and_reports_a_malformed_rule(store: Store, tmp_path: Path) -> None:
    rules = _reference_store(tmp_path)
    bad = rules / "R-009.yaml"
    bad.write_text("id: R-009\nwhen: {trigger: ''}\ndo: {directive: x}\nstatus: active\n", encoding="utf-8")
    before = _tree(rules)
    summary = import_paths(store, [rules])
    assert {i.file for i in summary.issues} == {"R-009.yaml"}
    assert any("trigger" in (i.field or "") + i.reason for i in summary.issues)
    assert _tree(rules) == before
    assert not (rules / ".quarantine").exists()
    # The reference, by contrast, moves it unless told not to.
    load_rules_from_dir(rules, quarantine=False)
    assert _tree(rules) == before
