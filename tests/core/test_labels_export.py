"""Labels exported into corpus JSONL load with cauterule 0.3.1 and change only expected_rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_labels_support import DEMO, import_demo, labels_store, pk_of  # noqa: F401  (fixture)

from core.domain.labels import LabelText
from core.labels.export import export_labels
from core.labels.service import save_label
from core.store.engine import Store

trajectory_jsonl = pytest.importorskip("cauterule.serialization.trajectory_jsonl")


def _objects(path: Path) -> list[dict[str, object]]:
    """Top-level objects of a JSONL file, pretty-printed records included (via our reader)."""
    from core.corpus.jsonl import read_trajectory_bytes

    return [r.data for r in read_trajectory_bytes(path.read_bytes(), path.name).records]


def test_export_differs_from_the_original_only_in_the_labelled_expected_rule(labels_store: Store, tmp_path: Path) -> None:
    import_demo(labels_store)
    relabelled = {
        "DF-GIT-001-push-non-ff": LabelText("git push is rejected as non-fast-forward",
                                            "run git pull --rebase, then push again"),
        "DF-TF-001-apply-state-lock": LabelText("terraform apply cannot acquire the state lock",
                                                "wait for the holding run to finish"),
        "DS-GIT-002-push-feature": LabelText("a feature push succeeds", "do nothing"),
    }
    for tid, text in relabelled.items():
        save_label(labels_store, pk_of(labels_store, tid), "ana", text)
    summary = export_labels(labels_store, "failures", tmp_path / "out")
    export_labels(labels_store, "successes", tmp_path / "out")
    assert summary.replaced == 2 and summary.records == 23

    changed: dict[str, object] = {}
    for folder in ("failures", "successes"):
        for original in sorted((DEMO / folder).glob("*.jsonl")):
            exported = tmp_path / "out" / folder / original.name
            # The reference loads every exported file in strict mode (a bad record would raise).
            loaded = list(trajectory_jsonl.load_trajectories(exported, strict=True))
            before, after = _objects(original), _objects(exported)
            assert len(loaded) == len(before) == len(after)
            for old, new in zip(before, after):
                assert list(new)[: len(old)] == list(old)  # key order kept
                if old != new:
                    assert {k for k in new if new.get(k) != old.get(k)} == {"expected_rule"}
                    changed[str(new["trajectory_id"])] = new["expected_rule"]
            for model, new in zip(loaded, after):
                assert model.expected_rule == new.get("expected_rule")
    assert changed == {tid: text.sentence() for tid, text in relabelled.items()}
    assert changed["DF-GIT-001-push-non-ff"] == (
        "when git push is rejected as non-fast-forward, run git pull --rebase, then push again"
    )


def test_unlabelled_records_keep_their_original_text(labels_store: Store, tmp_path: Path) -> None:
    import_demo(labels_store)
    export_labels(labels_store, "failures", tmp_path / "out")
    original = (DEMO / "failures" / "api.jsonl").read_text(encoding="utf-8").splitlines()
    exported = (tmp_path / "out" / "failures" / "api.jsonl").read_text(encoding="utf-8").splitlines()
    assert [line for line in original if line.strip()] == exported


def test_a_comma_in_the_trigger_is_warned_about(labels_store: Store, tmp_path: Path) -> None:
    import_demo(labels_store)
    save_label(labels_store, pk_of(labels_store, "DF-GIT-003-merge-conflict"), "ana",
                                       LabelText("git merge stops, with a conflict", "resolve it"))
    summary = export_labels(labels_store, "failures", tmp_path / "out")
    assert len(summary.warnings) == 1 and "comma" in summary.warnings[0]
    assert json.loads(json.dumps(summary.corpus)) == "failures"


def test_cli_labels_export(labels_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from core.cli.agreement import register

    import_demo(labels_store)
    save_label(labels_store, pk_of(labels_store, "DF-GIT-001-push-non-ff"), "ana", LabelText("a", "b"))
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["labels-export", "--store", "x", "--corpus", "failures", "--out", str(tmp_path / "o")])
    assert args.func(args, labels_store) == 0
    assert "1 expected_rule values replaced" in capsys.readouterr().err
    first = (tmp_path / "o" / "failures" / "git.jsonl").read_text(encoding="utf-8").splitlines()[0]
    assert json.loads(first)["expected_rule"] == "when a, b"
    args = parser.parse_args(["labels-export", "--store", "x", "--corpus", "nope", "--out", str(tmp_path / "o")])
    assert args.func(args, labels_store) == 1
