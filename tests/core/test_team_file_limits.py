"""A team file with one oversized key merges everything else: the bad entry is refused with file,
line, field and the limit, on SQLite and on PostgreSQL alike (``store_location``). On PostgreSQL a
10 KB trajectory id or reviewer name used to fail the whole merge (a b-tree entry stops at ~2.7 KB)."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_labels_support import Builder, small_run

from core.agreement.merge import export_reviewer, import_file
from core.agreement.session import commit_judgement, create_session, next_item
from core.corpus.limits import MAX_KEY_BYTES, MAX_PATH_BYTES
from core.domain.labels import LabelText
from core.labels.service import save_label
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store, open_store
from core.store.label_repo import LabelRepository

PUSH = LabelText("git push is rejected as non-fast-forward", "pull --rebase, then push")
IDS = ("T1", "T2", "T3", "T4")


def _huge(seed: int) -> str:
    # Random letters: a repeated string would compress under PostgreSQL's limit and prove nothing.
    return "".join(random.Random(seed).choices(string.ascii_letters, k=10_000))


def _prepare(store: Store) -> int:
    run_id = small_run(store)  # both machines imported the same corpus and ran the same replay
    Builder(store).trajectories(*IDS)
    return run_id


@pytest.fixture()
def exported(tmp_path: Path) -> dict[str, Any]:
    """Ana's work in her own (SQLite) store, exported: four labels, a blind session she judged."""
    ana = open_store(tmp_path / "ana.sqlite")
    run_id = _prepare(ana)
    pks = {t.trajectory_id: t.id for t in Builder(ana).corpora.list_trajectories(limit=1000)}
    for tid in IDS:
        save_label(ana, pks[tid], "ana", PUSH)
    session = create_session(ana, run_id, "ana", size=11, seed=5)
    while (item := next_item(ana, session.id, "ana")) is not None:
        commit_judgement(ana, item.item_id, "ana", "cant_tell")
    export_reviewer(ana, "ana", tmp_path / "ana.json")
    ana.close()
    payload: dict[str, Any] = json.loads((tmp_path / "ana.json").read_text(encoding="utf-8"))
    return payload


@pytest.fixture()
def bo(store_location: Path | str) -> Iterator[Store]:
    store = open_store(store_location)  # on each back end
    _prepare(store)
    yield store
    store.close()


def _write(path: Path, payload: dict[str, Any]) -> str:
    text = json.dumps(payload, indent=2, ensure_ascii=False)  # as ``export_reviewer`` writes it
    path.write_text(text, encoding="utf-8")
    return text


def _line_of(text: str, value: str) -> int:
    return text[:text.index(json.dumps(value))].count("\n") + 1


def test_a_huge_trajectory_id_and_reviewer_are_refused_with_file_line_field_and_limit(
    tmp_path: Path, exported: dict[str, Any], bo: Store,
) -> None:
    huge_id, huge_name = _huge(1), _huge(2)
    exported["labels"][1]["trajectory"]["trajectory_id"] = huge_id
    exported["labels"][2]["reviewer"] = huge_name
    text = _write(tmp_path / "team.json", exported)
    report = import_file(bo, tmp_path / "team.json", importer="bo")
    found = [(r.file, r.line, r.field) for r in report.refused]
    assert found == [(str(tmp_path / "team.json"), _line_of(text, huge_id), "labels[1].trajectory.trajectory_id"),
                     (str(tmp_path / "team.json"), _line_of(text, huge_name), "labels[2].reviewer")]
    for refused in report.refused:
        assert f"10,000 bytes, over the {MAX_KEY_BYTES:,}-byte limit" in refused.reason
        assert "this label was not imported" in refused.reason


def test_the_labels_and_judgements_around_a_huge_key_are_all_merged(
    tmp_path: Path, exported: dict[str, Any], bo: Store,
) -> None:
    exported["labels"][1]["trajectory"]["trajectory_id"] = _huge(1)
    exported["judgements"][3]["reviewer"] = _huge(3)
    judged = len(exported["judgements"])
    _write(tmp_path / "team.json", exported)
    report = import_file(bo, tmp_path / "team.json", importer="bo")
    assert report.added == {"labels": 3, "sessions": 1, "judgements": judged - 1}
    assert [r.field for r in report.refused] == ["labels[1].trajectory.trajectory_id", "judgements[3].reviewer"]
    stored = sorted(lb.key.trajectory_id for lb in LabelRepository(bo).labels(reviewer="ana", include_orphans=True))
    assert stored == ["T1", "T3", "T4"]


def test_a_session_with_a_huge_uid_is_refused_and_so_is_each_judgement_naming_it(
    tmp_path: Path, exported: dict[str, Any], bo: Store,
) -> None:
    huge_uid = _huge(4)
    exported["sessions"][0]["uid"] = huge_uid
    for judgement in exported["judgements"]:
        judgement["session"] = huge_uid
    _write(tmp_path / "team.json", exported)
    report = import_file(bo, tmp_path / "team.json", importer="bo")
    assert report.added == {"labels": 4}
    fields = [r.field for r in report.refused]
    assert fields[0] == "sessions[0].uid" and len(fields) == 1 + len(exported["judgements"])
    assert all(f.startswith("judgements[") and f.endswith("].session") for f in fields[1:])
    assert AgreementRepository(bo).sessions() == []


def test_a_long_path_like_field_has_the_path_limit(tmp_path: Path, exported: dict[str, Any], bo: Store) -> None:
    exported["labels"][0]["trajectory"]["file"] = "d/" * 500  # 1,000 bytes: a file path, over 768
    _write(tmp_path / "team.json", exported)
    report = import_file(bo, tmp_path / "team.json", importer="bo")
    [refused] = report.refused
    assert refused.field == "labels[0].trajectory.file"
    assert f"1,000 bytes, over the {MAX_PATH_BYTES:,}-byte limit for a file's path" in refused.reason
    assert report.added["labels"] == 3


def test_a_reviewer_name_at_the_limit_is_merged(tmp_path: Path, exported: dict[str, Any], bo: Store) -> None:
    at_limit = "é" * (MAX_KEY_BYTES // 2)  # two UTF-8 bytes each: exactly the limit
    for label in exported["labels"]:
        label["reviewer"] = at_limit
    _write(tmp_path / "team.json", exported)
    report = import_file(bo, tmp_path / "team.json", importer="bo")
    assert (report.refused, report.added["labels"]) == ((), 4)
    assert len(LabelRepository(bo).labels(reviewer=at_limit, include_orphans=True)) == 4


def test_the_judgements_of_a_session_refused_for_its_items_are_reported_once(
    tmp_path: Path, exported: dict[str, Any], bo: Store,
) -> None:
    item = next(i for i in exported["sessions"][0]["items"] if i.get("trajectory"))
    item["trajectory"]["trajectory_id"] = _huge(5)
    _write(tmp_path / "team.json", exported)
    report = import_file(bo, tmp_path / "team.json", importer="bo")
    first, said = report.refused
    assert first.field.startswith("sessions[0].items[") and first.field.endswith("].trajectory.trajectory_id")
    assert "this session was not imported" in first.reason
    assert (said.field, said.reason) == (
        "judgements", f"{len(exported['judgements'])} judgement(s) of the refused session(s) above were not imported")
    assert "judgements" not in report.added and report.added["labels"] == 4


def test_the_cli_prints_each_refused_entry_and_exits_with_an_error(
    tmp_path: Path, exported: dict[str, Any], bo: Store, capsys: pytest.CaptureFixture[str],
) -> None:
    import argparse

    from core.cli.agreement import EXIT_ERROR, register

    huge = _huge(6)
    exported["labels"][3]["trajectory"]["trajectory_id"] = huge
    text = _write(tmp_path / "team.json", exported)
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["team-import", str(tmp_path / "team.json"), "--as", "bo"])
    assert args.func(args, bo) == EXIT_ERROR  # not everything was merged: a script must notice
    out = capsys.readouterr().out
    assert f"refused {tmp_path / 'team.json'}:{_line_of(text, huge)} labels[3].trajectory.trajectory_id: 10,000 bytes" in out
    assert "'labels': 3" in out


def test_a_nul_character_refuses_its_entry_on_both_back_ends(tmp_path: Path, exported: dict[str, Any], bo: Store) -> None:
    # PostgreSQL text cannot hold NUL: the whole merge failed there; SQLite refuses it the same way now.
    exported["labels"][2]["label"]["directive"] = "pull\u0000 first"
    text = _write(tmp_path / "team.json", exported)
    report = import_file(bo, tmp_path / "team.json", importer="bo")
    [refused] = report.refused
    assert (refused.field, refused.line) == ("labels[2].label.directive", _line_of(text, "pull\u0000 first"))
    assert "NUL character" in refused.reason and report.added["labels"] == 3


def test_a_judgement_with_an_answer_no_item_takes_is_a_clear_error_and_nothing_is_merged(
    tmp_path: Path, exported: dict[str, Any], bo: Store,
) -> None:
    from core.agreement.merge import BadTeamFile

    exported["judgements"][0]["answer"] = "maybe"
    _write(tmp_path / "team.json", exported)
    with pytest.raises(BadTeamFile, match=r"team\.json: a malformed entry \('maybe' is not an answer"):
        import_file(bo, tmp_path / "team.json", importer="bo")
    assert LabelRepository(bo).labels(reviewer="ana", include_orphans=True) == []


def test_the_label_service_refuses_an_oversized_key_from_any_caller(bo: Store) -> None:
    from core.domain.labels import TrajectoryKey
    from core.labels.service import import_label

    key = TrajectoryKey("c", "a.jsonl", 1, _huge(7), "h")
    with pytest.raises(ValueError, match=rf"trajectory\.trajectory_id: 10,000 bytes, over the {MAX_KEY_BYTES:,}-byte"):
        import_label(bo, None, key, "ana", PUSH, "2026-01-01", "2026-01-01", "import:x.json", "bo")
    assert LabelRepository(bo).labels(include_orphans=True) == []
