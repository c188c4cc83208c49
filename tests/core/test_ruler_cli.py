"""``ruler --store DB [--json] [--no-semantic]``: exit 3 when a comparator is flagged."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from core.cli import main as cli_main
from core.cli.ruler import EXIT_FLAGGED, EXIT_OK, register
from core.store.engine import open_store

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


def run_ruler(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    store = open_store(args.store)
    try:
        return int(args.func(args, store))
    finally:
        store.close()


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("cli") / "s.sqlite")
    assert cli_main(["import", str(DEMO), "--store", path]) == 0
    assert cli_main(["replay", "--store", path, "--no-semantic", "--from-expected-rule"]) == 0
    return path


def test_flagged_comparators_exit_3_and_json_names_them(demo_db: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = run_ruler(["ruler", "--store", demo_db, "--json", "--no-semantic"])
    data = json.loads(capsys.readouterr().out)
    assert code == EXIT_FLAGGED == 3
    assert "directive_f1" in data["flagged"]
    assert data["thresholds"] == {"blind_below": 0.5, "over_sensitive_above": 0.25, "injected_rate": 0.3}
    assert all(m["floor"]["value"] is not None for m in data["metrics"])


def test_text_output_lists_each_flag(demo_db: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = run_ruler(["ruler", "--store", demo_db, "--no-semantic"])
    out = capsys.readouterr().out
    assert code == EXIT_FLAGGED
    assert "FLAG blind to opposite_directive" in out and "comparators flagged" in out


def test_an_empty_store_has_nothing_to_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_ruler(["ruler", "--store", str(tmp_path / "empty.sqlite"), "--no-semantic", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == EXIT_OK and data["flagged"] == []
