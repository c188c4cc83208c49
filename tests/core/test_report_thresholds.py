"""The report's threshold line says what the run used: a profile's flat threshold, or per corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.importing import import_paths
from core.replay.profiles import LAB_2026_12, WORKBENCH
from core.replaying import run_replay
from core.report import build_report, report_markdown
from core.store.engine import open_store

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.mark.parametrize(("profile", "line"), [
    (LAB_2026_12.with_(semantic=False), "- thresholds: flat 0.6;"),
    (WORKBENCH.with_(semantic=False), "- thresholds: flat per corpus;"),
])
def test_the_threshold_line_names_a_flat_threshold_when_the_profile_has_one(tmp_path: Path, profile: object,
                                                                             line: str) -> None:
    store = open_store(tmp_path / "s.sqlite")
    try:
        import_paths(store, [DEMO])
        run_replay(store, profile)  # type: ignore[arg-type]
        report = build_report(store)
        assert report["run"]["thresholds"]["flat"] == profile.threshold  # type: ignore[attr-defined]
        assert line in report_markdown(report)
    finally:
        store.close()
