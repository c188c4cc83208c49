"""Lossy edge cases (issue 25 item 9): numbers a record cannot keep are refused at file:line
with the literal, duplicate keys are kept (last value) and reported at file:line, folder link
loops are reported, and nothing exported is anything but standard JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from sqlalchemy import text

from core.corpus.jsonl import read_trajectory_bytes
from core.corpus.writer import NotJsonError, dump_record
from core.export.trajectories import export_corpus
from core.importing import import_paths
from core.store.engine import Store, open_store

from tests.drills.stores import record


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    opened = open_store(tmp_path / "store.sqlite")
    yield opened
    opened.close()


def _with(i: int, extra: str) -> str:
    """Record ``i`` with ``extra`` (raw JSON text, e.g. ``"x": NaN``) added as its last member."""
    return json.dumps(record(i, "lossy", success=False))[:-1] + ", " + extra + "}"


def _only_issue(extra: str) -> str:
    data = "\n".join([_with(1, '"ok": 1'), _with(2, extra), _with(3, '"ok": 3')]).encode()
    result = read_trajectory_bytes(data, "f.jsonl")
    assert [r.line for r in result.records] == [1, 3]
    [issue] = result.issues
    assert (issue.file, issue.line) == ("f.jsonl", 2)
    return issue.reason


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_as_not_json(constant: str) -> None:
    assert f"holds {constant}, which is not standard JSON" in _only_issue(f'"x": {constant}')


@pytest.mark.parametrize(("literal", "becomes"), [("1e-400", "it would become 0"), ("-2.5e400", "infinity")])
def test_a_number_a_float_cannot_hold_is_refused_with_its_literal(literal: str, becomes: str) -> None:
    reason = _only_issue(f'"x": {literal}')
    assert f"the number {literal}" in reason and becomes in reason


def test_small_but_representable_numbers_and_zeros_are_kept() -> None:
    data = _with(1, '"a": 0.0e5, "b": -0.0, "c": 5e-324, "d": 1.5e300').encode()
    [kept] = read_trajectory_bytes(data, "f.jsonl").records
    assert (kept.data["a"], kept.data["c"], kept.data["d"]) == (0.0, 5e-324, 1.5e300)


def test_a_5000_digit_integer_gets_a_workbench_message_not_pythons_advice() -> None:
    reason = _only_issue('"x": 1' + "0" * 4999)
    assert "integer with more than 4,300 digits" in reason and "write it as a string" in reason
    assert "set_int_max_str_digits" not in reason


def test_duplicate_keys_are_kept_last_and_reported_at_file_and_line(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "root" / "failures"
    folder.mkdir(parents=True)
    duplicated = _with(2, '"domain": "second"')  # record() already has "domain"
    (folder / "d.jsonl").write_text(_with(1, '"ok": 1') + "\n" + duplicated + "\n", encoding="utf-8")
    summary = import_paths(store, [tmp_path / "root"])
    assert any(n.startswith("failures/d.jsonl:2 [domain]: key 'domain' appears more than once") for n in summary.notes)
    with store.read_session() as session:
        raw, domain = session.execute(text("SELECT raw_text, domain FROM trajectory WHERE line = 2")).one()
    assert raw == duplicated and domain == "second"


def test_the_writer_refuses_nan_rather_than_write_a_file_that_is_not_json() -> None:
    with pytest.raises(NotJsonError, match="'T-1' holds NaN or Infinity"):
        dump_record({"trajectory_id": "T-1", "x": float("nan")})


def test_exporting_a_nan_stored_before_is_one_line_and_no_file(
    tmp_path: Path, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    from core.cli import main

    folder = tmp_path / "root" / "failures"
    folder.mkdir(parents=True)
    (folder / "f.jsonl").write_text(_with(1, '"x": 0.5') + "\n", encoding="utf-8")
    import_paths(store, [tmp_path / "root"])
    with store.session() as session:  # as an import before this change stored it
        session.execute(text("UPDATE trajectory SET record_json = replace(record_json, '0.5', 'NaN')"))
    store.close()
    code = main(["export-trajectories", "--corpus", "failures", "--out", str(tmp_path / "out"),
                 "--store", str(tmp_path / "store.sqlite")])
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1 and "holds NaN or Infinity" in err
    assert not (tmp_path / "out" / "failures" / "f.jsonl").exists()


def test_an_export_of_an_import_with_lossy_records_is_standard_json_the_reference_reads(
    tmp_path: Path, store: Store
) -> None:
    from cauterule.serialization.trajectory_jsonl import load_trajectories_result

    folder = tmp_path / "root" / "failures"
    folder.mkdir(parents=True)
    lines = [_with(1, '"x": NaN'), _with(2, '"x": 1e-400'), _with(3, '"x": 0.25'), _with(4, '"domain": "k8s"')]
    (folder / "f.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_paths(store, [tmp_path / "root"])
    [exported] = export_corpus(store, "failures", tmp_path / "out")

    def refuse(name: str) -> None:
        raise AssertionError(f"non-standard JSON exported: {name}")

    rows = [json.loads(line, parse_constant=refuse) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert [(r["trajectory_id"], r.get("x"), r["domain"]) for r in rows] == [("F-00003", 0.25, "docker"),
                                                                            ("F-00004", None, "k8s")]
    reference = load_trajectories_result(exported)
    assert [t.id for t in reference.loaded] == ["F-00003", "F-00004"] and reference.skipped == 0


def test_folder_link_loops_are_reported_not_skipped_silently(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "root" / "failures"
    folder.mkdir(parents=True)
    (folder / "f.jsonl").write_text(_with(1, '"ok": 1') + "\n", encoding="utf-8")
    os.symlink("..", folder / "up")  # a link to an ancestor: walking it would never end
    os.symlink("self", folder / "self")  # a link to itself
    summary = import_paths(store, [tmp_path / "root"])
    assert "failures/up: a folder link back to a folder that contains it (a loop); not followed" in summary.notes
    assert "failures/self: a symbolic link loop; skipped" in summary.notes
    assert sum(c.imported for c in summary.corpora) == 1
