"""Export writes a CauterRule rule store folder, atomically, never over someone else's files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
import yaml
from test_promotion_support import Builder, promotion_store  # noqa: F401  (fixtures)

from core.cli.promotion import register
from core.corpus.rules import read_rule_bytes
from core.export.rule_store import MANIFEST, RuleStoreExportError, export_rule_store
from core.promotion import approve, retire, supersede
from core.store.engine import Store


@pytest.fixture()
def promoted(promotion_store: Store) -> Builder:
    b = Builder(promotion_store)
    b.trajectories("F-1", "F-2")
    b.trajectories("S-1", success=True)
    first = b.rule("c/a.yaml", "when git push is rejected — non-fast-forward", "pull --rebase, then push")
    second = b.rule("c/b.yaml", "when the pod is OOMKilled", "raise the memory limit")
    third = b.rule("c/c.yaml", "when the pod is OOM-killed", "raise the memory limit by 25%")
    run = b.run([(first, "pass", {"prevented": ["F-1", "F-2"], "broken": ["S-1"]}),
                 (second, "pass", {"prevented": ["F-2"]}), (third, "pass", {"prevented": ["F-2"]})])
    approve(b.store, first, run, "ana", "ok", waivers={"S-1": "echo"})
    approve(b.store, second, run, "ana", "ok")
    approve(b.store, third, run, "ana", "ok")
    retire(b.store, "R-002", "ana", "too broad")
    supersede(b.store, "R-001", "R-003", "ana", "replaced")
    return b


def test_one_yaml_per_rule_in_reference_field_order(promoted: Builder, tmp_path: Path) -> None:
    result = export_rule_store(promoted.store, tmp_path / "out")
    assert sorted(p.name for p in result.files) == ["R-001.yaml", "R-002.yaml", "R-003.yaml", "index.yaml"]
    text = (tmp_path / "out" / "R-001.yaml").read_text(encoding="utf-8")
    assert "—" in text  # Unicode kept, not escaped
    doc = yaml.safe_load(text)
    assert list(doc)[:8] == ["id", "when", "do", "confidence", "provenance", "status", "promoted_at", "hit_count"]
    assert doc["status"] == "superseded" and doc["superseded_by"] == "R-003" and doc["retired_at"]
    prov = doc["provenance"]
    assert prov["extracted_by"] == "cauterule-workbench" and prov["promotion_mode"] == "human"
    assert prov["replay_evidence"] == {"failures_prevented": ["F-1", "F-2"], "successes_broken": ["S-1"],
                                       "precision": pytest.approx(2 / 3), "recall": 0.5}
    retired = yaml.safe_load((tmp_path / "out" / "R-002.yaml").read_text(encoding="utf-8"))
    assert retired["retirement_reason"] == "too broad" and "superseded_by" not in retired
    index = yaml.safe_load((tmp_path / "out" / "index.yaml").read_text(encoding="utf-8"))
    assert [e["id"] for e in index["rules"]] == ["R-001", "R-002", "R-003"]
    assert set(index["rules"][0]) == {"id", "status", "summary", "tags", "hit_count", "last_match", "pack"}
    for path in result.files[:-1]:  # our own reader accepts every file as a valid standing rule
        read = read_rule_bytes(path.read_bytes(), path.name)
        assert read.kind == "standing" and read.issues == []


def test_refuses_a_non_empty_folder_that_is_not_a_previous_export(promoted: Builder, tmp_path: Path) -> None:
    target = tmp_path / "rules"
    target.mkdir()
    (target / "R-001.yaml").write_text("somebody: else\n", encoding="utf-8")
    with pytest.raises(RuleStoreExportError, match="not a previous Workbench export"):
        export_rule_store(promoted.store, target)
    assert (target / "R-001.yaml").read_text(encoding="utf-8") == "somebody: else\n"
    assert sorted(p.name for p in target.iterdir()) == ["R-001.yaml"]


def test_re_export_replaces_the_previous_export_and_nothing_else(promoted: Builder, tmp_path: Path) -> None:
    out = tmp_path / "out"
    export_rule_store(promoted.store, out)
    (out / "R-002.yaml").write_text("stale copy\n", encoding="utf-8")
    export_rule_store(promoted.store, out)
    assert yaml.safe_load((out / "R-002.yaml").read_text(encoding="utf-8"))["id"] == "R-002"
    assert json.loads((out / MANIFEST).read_text(encoding="utf-8"))["files"] == [
        "R-001.yaml", "R-002.yaml", "R-003.yaml", "index.yaml"]
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(RuleStoreExportError, match="notes.txt"):
        export_rule_store(promoted.store, out)


def _cli(argv: list[str], store: Store) -> int:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args, store))


def test_cli_export_rules_and_promotions(promoted: Builder, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["export-rules", "--out", str(tmp_path / "out")], promoted.store) == 0
    assert "wrote 3 rules" in capsys.readouterr().out
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.yaml").write_text("a: 1\n", encoding="utf-8")
    assert _cli(["export-rules", "--out", str(tmp_path / "busy")], promoted.store) == 1
    assert capsys.readouterr().err.startswith("error: ")
    assert _cli(["promotions", "--no-semantic", "--json"], promoted.store) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["similarity"]["method"] == "lexical"
    assert {(i["standing_id"], i["promotion_status"]) for i in payload["items"]} == {
        ("R-001", "superseded"), ("R-002", "retired"), ("R-003", "active")}
    assert {g["name"] for g in payload["items"][0]["gates"]} == {
        "verdict", "broken_reviewed", "agreement", "duplicates", "conflicts"}
    assert _cli(["promotions", "--no-semantic"], promoted.store) == 0
    assert "similarity: lexical" in capsys.readouterr().out
