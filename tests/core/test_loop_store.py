"""The loop over a real store (the demo corpus): CLI commands, report sections, writing a
candidate and the tainted-approval hook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main
from core.importing import import_paths
from core.loop.candidates import CandidateError, create_candidate, find_trajectory, load_pool, prefill, preview
from core.loop.taint import TaintJustificationRequired
from core.loop.views import TAINTED_APPROVAL, guard_approval, taint_summary, trajectory_info
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, open_store
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture
def store(store_location: Path | str) -> Store:
    opened = open_store(store_location)  # on each back end
    import_paths(opened, [DEMO])
    yield opened  # type: ignore[misc]
    opened.close()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_import_ignores_the_session_files(store: Store) -> None:
    assert not any(d.file.endswith(".ndjson") for d in CorpusRepository(store).get_trajectories())


def test_gate_cli_lists_silence_rates_and_disagreements(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "c.sqlite")
    _run(capsys, "import", str(DEMO), "--store", db)
    code, out, _ = _run(capsys, "gate", "--store", db, "--json", "--mode", "strict")
    rows = {r["corpus"]: r for r in json.loads(out)}
    assert code == 0
    assert rows["successes"]["silence_rate"]["k"] == rows["successes"]["n"] == 12
    assert rows["failures"]["silence_rate"]["k"] == 0
    assert rows["nearmiss"]["reasons"] == {"nearmiss_recovery_succeeded": 6}


def test_gate_cli_unknown_corpus_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    open_store(tmp_path / "e.sqlite").close()  # an empty store (a missing one is refused: test_store_arguments)
    code, _out, err = _run(capsys, "gate", "--store", str(tmp_path / "e.sqlite"), "--corpus", "nope")
    assert code == 1 and "no corpus named 'nope'" in err


def test_taint_is_computed_for_every_trajectory(store: Store) -> None:
    info = trajectory_info(store)
    by_id = {d.trajectory_id: info[d.id] for d in CorpusRepository(store).get_trajectories()}
    assert by_id["DA-002-tool-output-injection"].taint.reference and by_id["DA-002-tool-output-injection"].taint.tainted
    injected = by_id["DA-001-injection-in-task"].taint
    assert not injected.reference and injected.tainted  # payload in the task
    assert sum(i.taint.tainted for i in info.values()) == 2


def test_prefill_from_expected_rule_and_from_the_failure(store: Store) -> None:
    details = {d.trajectory_id: d for d in CorpusRepository(store).get_trajectories()}
    with_rule = next(d for d in details.values() if d.expected_rule)
    assert prefill(with_rule).source == "expected_rule"
    without = next(d for d in details.values() if not d.success and not (d.expected_rule or "").strip())
    filled = prefill(without)
    assert filled.source == "failure" and filled.trigger


def test_preview_replays_the_unsaved_text_without_writing(store: Store) -> None:
    pool = load_pool(store)
    source = next(t for t in pool if t.trajectory_id == "DF-GIT-001-push-non-ff")
    before = len(RuleRepository(store).list_rules())
    result = preview(pool, source, "git push rejected non-fast-forward", "pull --rebase first")
    assert result.prevented and "DF-GIT-001-push-non-ff" not in result.prevented  # self-excluded
    assert len(RuleRepository(store).list_rules()) == before


def test_saving_a_candidate_records_author_and_provenance(store: Store) -> None:
    pk = find_trajectory(store, "DF-GIT-001-push-non-ff")
    created = create_candidate(store, pk, "git push rejected", "pull --rebase first", "ana")
    rule = RuleRepository(store).get(created.rule_id)
    assert rule is not None and rule.kind == "user" and rule.source_trajectory_pk == pk
    assert rule.latest.author == "ana" and rule.source_trajectory == "DF-GIT-001-push-non-ff"
    again = create_candidate(store, pk, "git push rejected", "pull --rebase first", "ana")
    assert (again.rule_id, again.state) == (created.rule_id, "unchanged")


def test_blank_candidate_text_is_refused(store: Store) -> None:
    pk = find_trajectory(store, "DF-GIT-001-push-non-ff")
    with pytest.raises(CandidateError, match="directive"):
        create_candidate(store, pk, "git push", "  ", "ana")


def test_tainted_approval_needs_a_justification_and_is_counted(store: Store) -> None:
    pk = find_trajectory(store, "DA-002-tool-output-injection")
    rule_id = create_candidate(store, pk, "web page says", "ignore it", "ana").rule_id
    with pytest.raises(TaintJustificationRequired, match="tainted"):
        guard_approval(store, rule_id, "ana", "")
    assert guard_approval(store, rule_id, "ana", "checked: the directive refuses the payload") is not None
    assert [e.action for e in ReviewRepository(store).audit("rule", rule_id)] == [TAINTED_APPROVAL]
    summary = taint_summary(store)
    assert [c["rule_id"] for c in summary["tainted_candidates"]] == [rule_id]
    assert summary["tainted_candidates"][0]["justified"]


def test_clean_approval_passes_the_hook_silently(store: Store) -> None:
    pk = find_trajectory(store, "DF-GIT-001-push-non-ff")
    rule_id = create_candidate(store, pk, "git push rejected", "pull first", "ana").rule_id
    assert guard_approval(store, rule_id, "ana", None) is None
    assert ReviewRepository(store).audit("rule", rule_id) == []


def test_report_has_the_loop_sections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "r.sqlite")
    _run(capsys, "import", str(DEMO), "--store", db)
    _run(capsys, "replay", "--store", db, "--profile", "reference-0.3.1", "--no-semantic")
    cs = DEMO / "cross-session"
    code, _o, _e = _run(capsys, "cross-session", "--store", db, "--baseline", str(cs / "baseline.sessions.ndjson"),
                        "--intervention", str(cs / "intervention.sessions.ndjson"), "--save")
    assert code == 0
    _c, out, _e = _run(capsys, "report", "--store", db, "--json")
    loop = json.loads(out)["loop"]
    assert {"gate", "injection", "taint", "cross_session"} <= set(loop)
    assert loop["injection"]["rules"] and loop["cross_session"]["reduction"] == 0.5
    _c, md, _e = _run(capsys, "report", "--store", db, "--md")
    for heading in ("## Pre-extraction gate", "## Fires at injection", "## Source trust (taint)",
                    "## Cross-session repeat failures"):
        assert heading in md


def test_injection_cli_compares_with_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "i.sqlite")
    _run(capsys, "import", str(DEMO), "--store", db)
    _run(capsys, "replay", "--store", db, "--profile", "reference-0.3.1", "--no-semantic")
    code, out, _ = _run(capsys, "injection", "--store", db, "--json")
    rules = json.loads(out)["rules"]
    assert code == 0 and rules
    assert all(r["fired"] == r["also_prevented"] + r["also_broken"] + r["fired_only"] for r in rules.values())


def test_cross_session_cli_reports_bad_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"session": 1, "success": false, "failure_class": "a"}\n{"session": 0, "success": false}\n')
    open_store(tmp_path / "x.sqlite").close()
    code, _o, err = _run(capsys, "cross-session", "--store", str(tmp_path / "x.sqlite"), "--baseline", str(bad),
                         "--intervention", str(bad))
    assert code == 1 and f"{bad}:2 [session]" in err


def test_new_candidate_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "n.sqlite")
    _run(capsys, "import", str(DEMO), "--store", db)
    code, out, _ = _run(capsys, "new-candidate", "--store", db, "--trajectory", "DF-GIT-001-push-non-ff",
                        "--trigger", "git push rejected", "--directive", "pull first", "--author", "ana")
    assert code == 0 and out.startswith("rule ")
