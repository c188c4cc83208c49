"""The agreement screen: sizing and session creation, the blind loop (answer hidden until the
judgement is committed), a 30-item session judged halfway, closed, reopened and finished with
the same numbers as ``cauterule-workbench agreement --json``, blind vs unblinded marks kept
apart, the team merge (conflicts listed, nothing overwritten) and adjudication, plain text."""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REVIEWER, preset_reviewer
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel

from core.agreement.blind import answer_text
from core.agreement.results import session_result
from core.agreement.session import commit_judgement, create_session, judging_view, next_item
from core.cli.agreement import register
from core.domain.agreement import BlindItem, Progress
from core.domain.labels import LabelText
from core.importing import import_paths
from core.labels.service import save_label
from core.replay.profiles import REFERENCE_0_3_1
from core.replaying import run_replay
from core.store.agreement_repo import AgreementRepository
from core.store.engine import open_store
from core.store.label_repo import LabelRepository
from core.store.review_repo import ReviewRepository

from cauterule_gui.jobs import JobRunner
from cauterule_gui.models import agreement_data
from cauterule_gui.models.agreement_result_models import AgreementStratumModel, stratum_rows
from cauterule_gui.models.agreement_team_models import (
    JudgementDisagreementModel,
    LabelDisagreementModel,
    MergeConflictModel,
)
from cauterule_gui.panels.agreement import TAB_JUDGE, TAB_NEW, TAB_RESULTS, TAB_TEAM, AgreementPanel
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices, open_services
from cauterule_gui.settings import make_settings

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("agreement") / "demo.sqlite"
    store = open_store(path)
    try:
        import_paths(store, [DEMO])
        assert run_replay(store, REFERENCE_0_3_1).status == "complete"
    finally:
        store.close()
    return path


def copy_store(template: Path, target: Path) -> StoreServices:
    shutil.copy(template, target)
    return open_services(target)


@pytest.fixture
def demo(tmp_path: Path, demo_template: Path) -> Iterator[StoreServices]:
    opened = copy_store(demo_template, tmp_path / "demo.sqlite")
    yield opened
    opened.close()


def idle(qtbot: Any, runner: JobRunner) -> None:
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=10_000)


def make_panel(qtbot: Any, services: StoreServices, runner: JobRunner, reviewer: str = REVIEWER) -> AgreementPanel:
    preset_reviewer(reviewer)
    panel = AgreementPanel(lambda: services, runner, ReviewerIdentity(make_settings()))
    panel.resize(1400, 900)
    qtbot.addWidget(panel)
    panel.show()
    panel.refresh()
    qtbot.waitUntil(lambda: panel.run_combo.count() > 0, timeout=10_000)
    idle(qtbot, runner)
    return panel


def close_panel(qtbot: Any, panel: AgreementPanel, runner: JobRunner) -> None:
    idle(qtbot, runner)
    panel.close()


def wait_item(qtbot: Any, panel: AgreementPanel) -> None:
    qtbot.waitUntil(lambda: panel.current is not None and panel.reveal is None and bool(panel._answer_buttons),
                    timeout=10_000)


def key_for(panel: AgreementPanel, answer: str) -> str:
    assert panel.current is not None and panel.current.item is not None
    if answer == "cant_tell":
        return "0"
    decisive = [c for c in panel.current.item.choices if c != "cant_tell"]
    return str(decisive.index(answer) + 1)


def judge_by_keys(qtbot: Any, panel: AgreementPanel, truth: dict[int, str], count: int) -> None:
    """Agree with replay except on every fourth ordinal (a wrong, decisive answer there)."""
    for _ in range(count):
        wait_item(qtbot, panel)
        item = panel.current.item  # type: ignore[union-attr]
        assert item is not None and item.replay_answer is None
        answer = truth[item.item_id] if item.ordinal % 4 else next(
            c for c in item.choices if c not in (truth[item.item_id], "cant_tell"))
        qtbot.keyClick(panel.judge_page, key_for(panel, answer))
        if item.scope_choices:  # a failure: the scope question follows (1 = in scope)
            assert panel.question.text().endswith("Is this a failure this rule is meant for?")
            qtbot.keyClick(panel.judge_page, "1")
        qtbot.waitUntil(lambda: panel.reveal is not None, timeout=10_000)
        qtbot.keyClick(panel.judge_page, Qt.Key.Key_Return)


def cli_json(path: Path, session_uid: str, store: Any, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["agreement", "--store", str(path), "--session", session_uid, "--json"])
    capsys.readouterr()
    assert args.func(args, store) == 0
    return json.loads(capsys.readouterr().out)


# -- models ------------------------------------------------------------------------------
def test_every_table_model_passes_the_model_tester(qtmodeltester: Any, demo: StoreServices) -> None:
    store = demo.store
    session = create_session(store, 1, "lead", size=12, seed=3)
    for reviewer in ("ana", "bob"):
        while (item := next_item(store, session.id, reviewer)) is not None:
            answer = item.choices[0] if reviewer == "ana" or item.ordinal % 2 else item.choices[1]
            commit_judgement(store, item.item_id, reviewer, answer)
    pk = next(t.id for t in demo.corpora.list_trajectories(limit=100) if t.trajectory_id.startswith("DF-GIT-001"))
    save_label(store, pk, "ana", LabelText("<b>push</b> rejected", "rebase"))
    save_label(store, pk, "bob", LabelText("push refused", "pull then push"))
    team = agreement_data.team_view(store, session.id)
    assert team.judgements.disagreements and team.labels.disagreements
    strata = AgreementStratumModel()
    strata.set_rows(stratum_rows(session_result(store, session.id)))
    labels, judgements, conflicts = LabelDisagreementModel(), JudgementDisagreementModel(), MergeConflictModel()
    labels.set_rows(team.labels.disagreements)
    judgements.set_rows(team.judgements.disagreements)
    from core.agreement.merge import MergeConflict

    conflicts.set_rows([MergeConflict("label", "failures/git.jsonl:1 DF-GIT-001", "ana",
                                      {"trigger": "a", "directive": "b"}, {"trigger": "c", "directive": "d"})])
    for model in (strata, labels, judgements, conflicts):
        assert model.rowCount() > 0
        qtmodeltester.check(model, force_py=True)
    for model in (AgreementStratumModel(), LabelDisagreementModel(), JudgementDisagreementModel(),
                  MergeConflictModel()):
        qtmodeltester.check(model, force_py=True)
    assert "<b>push</b> rejected" in labels.index(0, 2).data()  # verbatim


# -- creating a session --------------------------------------------------------------------
def test_sizing_shows_n_needed_and_the_half_width_of_n_chosen(qtbot: Any, demo: StoreServices,
                                                              runner: JobRunner) -> None:
    panel = make_panel(qtbot, demo, runner)
    assert panel.tabs.currentIndex() == TAB_NEW and panel.blind_box.isChecked()
    qtbot.waitUntil(lambda: panel.population == 178, timeout=10_000)
    panel.half_width.setValue(0.10)
    assert "n needed for ±0.100 at p = 0.80: 60" in panel.needed_label.text()
    assert panel.size_spin.value() == 60
    from core.agreement.sizing import expected_half_width

    width = expected_half_width(60, 0.8)
    assert width is not None and width <= 0.10
    assert f"with n = 60 the expected half-width is ±{width:.3f}" in panel.size_label.text()
    panel.size_spin.setValue(30)
    assert "with n = 30 the expected half-width is ±0.139" in panel.size_label.text()
    qtbot.waitUntil(lambda: "Sample of 30 items" in panel.preview_label.text(), timeout=10_000)
    panel.seed_spin.setValue(77)
    created: list[Any] = []
    panel.session_created.connect(created.append)
    panel.create_button.click()
    qtbot.waitUntil(lambda: bool(created), timeout=10_000)
    info = created[0]
    assert info.size == 30 and info.blind and info.seed == 77 and info.created_by == REVIEWER
    qtbot.waitUntil(lambda: panel.tabs.currentIndex() == TAB_JUDGE and panel.current is not None, timeout=10_000)
    assert panel.current_session() is not None and panel.current_session().id == info.id  # type: ignore[union-attr]
    close_panel(qtbot, panel, runner)


# -- the blind loop -----------------------------------------------------------------------
def test_the_answer_is_hidden_until_the_judgement_is_committed(qtbot: Any, demo: StoreServices,
                                                               runner: JobRunner) -> None:
    session = create_session(demo.store, 1, "lead", size=10, seed=5)
    truth = {i.id: i.replay_answer for i in AgreementRepository(demo.store).items_with_answers(session.id)}
    strata = {i.stratum for i in AgreementRepository(demo.store).items_with_answers(session.id)}
    panel = make_panel(qtbot, demo, runner)
    # The window's single-key shortcuts (1–4 show evidence tabs on the Review tab) must not steal keys.
    stolen: list[bool] = []
    window_key = QAction("window 1", panel)
    window_key.setShortcut("1")
    window_key.triggered.connect(lambda: stolen.append(True))
    panel.addAction(window_key)
    panel.tabs.setCurrentIndex(TAB_JUDGE)
    wait_item(qtbot, panel)
    item = panel.current.item  # type: ignore[union-attr]
    assert item is not None and item.replay_answer is None
    shown = "\n".join(w.text() for w in panel.findChildren(QLabel) if w.isVisible())
    assert "replay said" not in shown.lower()
    assert not panel.reveal_label.isVisible() and panel.reveal_label.text() == ""
    assert not any(s in shown for s in strata)  # the stratum would give the answer away
    choice = [c for c in item.choices if c != "cant_tell"][0]
    qtbot.keyClick(panel.judge_page, "1")
    if item.scope_choices:  # the scope question follows on a failure; still nothing revealed
        assert panel.reveal is None and not panel.reveal_label.isVisible()
        qtbot.keyClick(panel.judge_page, "1")
    qtbot.waitUntil(lambda: panel.reveal is not None, timeout=10_000)
    assert not stolen
    assert panel.reveal_label.isVisible()
    assert f"replay said: {answer_text(truth[item.item_id])}" in panel.reveal_label.text()
    assert f"Your judgement: {answer_text(choice)} (committed)" in panel.reveal_label.text()
    assert panel.progress.value() == 1
    stored = AgreementRepository(demo.store).judgements(session.id, REVIEWER)
    assert [(j.item_id, j.answer) for j in stored] == [(item.item_id, choice)]
    # After the reveal a second key cannot change the judgement: Enter moves on.
    qtbot.keyClick(panel.judge_page, "2")
    assert len(AgreementRepository(demo.store).judgements(session.id, REVIEWER)) == 1
    qtbot.keyClick(panel.judge_page, Qt.Key.Key_Return)
    wait_item(qtbot, panel)
    assert panel.current.item.ordinal == 2  # type: ignore[union-attr]
    # Can't tell (0) is committed and left out of the statistics.
    qtbot.keyClick(panel.judge_page, "0")
    if panel.current.item.scope_choices:  # type: ignore[union-attr]
        qtbot.keyClick(panel.judge_page, "0")
    qtbot.waitUntil(lambda: panel.reveal is not None, timeout=10_000)
    assert "could not tell" in panel.reveal_label.text()
    close_panel(qtbot, panel, runner)


def test_a_30_item_session_resumes_after_closing_and_matches_the_cli(
    qtbot: Any, tmp_path: Path, demo_template: Path, runner: JobRunner, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "resume.sqlite"
    services = copy_store(demo_template, path)
    panel = make_panel(qtbot, services, runner)
    panel.size_spin.setValue(30)
    panel.seed_spin.setValue(2026)
    created: list[Any] = []
    panel.session_created.connect(created.append)
    panel.create_session()
    qtbot.waitUntil(lambda: bool(created), timeout=10_000)
    session = created[0]
    truth = {i.id: i.replay_answer for i in AgreementRepository(services.store).items_with_answers(session.id)}
    qtbot.waitUntil(lambda: panel.tabs.currentIndex() == TAB_JUDGE, timeout=10_000)
    judge_by_keys(qtbot, panel, truth, 15)
    wait_item(qtbot, panel)
    assert panel.progress.value() == 15
    close_panel(qtbot, panel, runner)  # the app is closed halfway
    services.close()

    services = open_services(path)
    try:
        panel = make_panel(qtbot, services, runner)
        assert panel.current_session().id == session.id  # type: ignore[union-attr]
        assert "you: 15/30" in panel.session_combo.currentText()
        panel.tabs.setCurrentIndex(TAB_JUDGE)
        wait_item(qtbot, panel)
        assert panel.current.item.ordinal == 16 and panel.progress.value() == 15  # type: ignore[union-attr]
        judge_by_keys(qtbot, panel, truth, 15)
        qtbot.waitUntil(lambda: panel.current is not None and panel.current.item is None, timeout=10_000)
        assert "judged every item" in panel.judge_header.text()
        panel.tabs.setCurrentIndex(TAB_RESULTS)
        qtbot.waitUntil(lambda: panel.last_result is not None, timeout=10_000)
        shown = json.loads(json.dumps(panel.last_result.to_dict()))
        assert shown == cli_json(path, session.uid, services.store, capsys)
        agreement = panel.last_result.comparison.agreement
        assert (agreement.k, agreement.n) == (30 - 7, 30)
        assert panel.agreement_label.text().startswith(f"Percent agreement: 23/30 = {agreement.value:.2f} "
                                                       f"[{agreement.ci[0]:.2f}–{agreement.ci[1]:.2f}]")
        kappa = panel.last_result.comparison.kappa
        assert f"Cohen's κ: {kappa.value:.2f} [{kappa.ci[0]:.2f}–{kappa.ci[1]:.2f}]" in panel.kappa_label.text()
        gate = panel.last_result.comparison.gate
        assert gate.reason in panel.gate_label.text()
        assert panel.strata_model.rowCount() == len(shown["per_kind"]) + len(shown["per_stratum"])
        assert len(panel.figure.axes) == len(shown["per_kind"])  # one confusion matrix per item kind
        close_panel(qtbot, panel, runner)
    finally:
        services.close()


def test_blind_results_and_unblinded_marks_are_never_mixed(qtbot: Any, demo: StoreServices,
                                                           runner: JobRunner) -> None:
    store = demo.store
    session = create_session(store, 1, "lead", size=8, seed=11)
    while (item := next_item(store, session.id, REVIEWER)) is not None:
        commit_judgement(store, item.item_id, REVIEWER, item.choices[0])
    result = demo.replays.results(1)[0]
    reviews = ReviewRepository(store)
    for i, mark in enumerate(("right", "right", "wrong")):
        reviews.mark(REVIEWER, result.id, None if i == 0 else i, result.verdict, mark)
    expected = session_result(store, session.id)
    panel = make_panel(qtbot, demo, runner)
    panel.tabs.setCurrentIndex(TAB_RESULTS)
    qtbot.waitUntil(lambda: panel.last_result is not None, timeout=10_000)
    assert panel.last_result.comparison.agreement == expected.comparison.agreement
    assert panel.last_result.comparison.judgements == 8  # only the blind judgements
    assert "Blind session" in panel.mode_label.text()
    assert panel.unblinded_label.text().startswith("2 right, 1 wrong")
    assert "unblinded" in panel.unblinded_box.title().lower()
    assert "2 right" not in panel.agreement_label.text()

    unblinded = create_session(store, 1, "lead", size=4, seed=12, blind=False)
    panel.refresh()
    qtbot.waitUntil(lambda: panel.session_combo.findData(unblinded.id) >= 0, timeout=10_000)
    panel.select_session(unblinded.id)
    qtbot.waitUntil(lambda: panel.last_result is not None and panel.last_result.session.id == unblinded.id,
                    timeout=10_000)
    assert "UNBLINDED session" in panel.mode_label.text()
    assert "Gate (not used: unblinded)" in panel.gate_label.text()
    panel.tabs.setCurrentIndex(TAB_JUDGE)
    wait_item(qtbot, panel)
    assert panel.unblinded_banner.isVisible() and "replay's answer is" in panel.unblinded_banner.text()
    close_panel(qtbot, panel, runner)


# -- a team ---------------------------------------------------------------------------------
def test_team_merge_lists_conflicts_and_a_lead_adjudicates(qtbot: Any, tmp_path: Path, demo_template: Path,
                                                           runner: JobRunner) -> None:
    ana_store = copy_store(demo_template, tmp_path / "ana.sqlite")
    bob_store = copy_store(demo_template, tmp_path / "bob.sqlite")
    try:
        pks = {t.trajectory_id: t.id for t in ana_store.corpora.list_trajectories(limit=100)}
        x, y = pks["DF-GIT-001-push-non-ff"], pks["DF-GIT-002-hotfix-push-behind"]
        save_label(ana_store.store, x, "ana", LabelText("git push is rejected as <b>non-ff</b>", "rebase"))
        save_label(ana_store.store, y, "ana", LabelText("push behind remote", "pull --rebase"))
        save_label(bob_store.store, x, "bob", LabelText("push refused by the remote", "pull then push"))
        # bob's store already holds an older, different label by ana for y: a conflict, never overwritten.
        save_label(bob_store.store, y, "ana", LabelText("older words", "older action"))

        ana = make_panel(qtbot, ana_store, runner, reviewer="ana")
        export = tmp_path / "ana.json"
        ana.tabs.setCurrentIndex(TAB_TEAM)
        ana.export_to(export)
        qtbot.waitUntil(lambda: "Exported" in ana.merge_label.text(), timeout=10_000)
        assert export.exists()
        close_panel(qtbot, ana, runner)

        bob = make_panel(qtbot, bob_store, runner, reviewer="bob")
        bob.tabs.setCurrentIndex(TAB_TEAM)
        bob.import_from(export)
        qtbot.waitUntil(lambda: bob.last_merge is not None, timeout=10_000)
        assert bob.conflict_model.rowCount() == 1
        conflict = bob.conflict_model.row_at(0)
        assert conflict is not None and conflict.kind == "label" and conflict.reviewer == "ana"
        assert "older words" in bob.conflict_model.index(0, 3).data()
        assert "1 conflict(s), nothing overwritten" in bob.merge_label.text()
        kept = LabelRepository(bob_store.store).get(y, "ana")
        assert kept is not None and kept.text.trigger == "older words"

        # x: ana and bob differ; y holds only ana's (kept) label here, so it is no disagreement.
        qtbot.waitUntil(lambda: bob.label_dis_model.rowCount() == 1, timeout=10_000)
        rows = {bob.label_dis_model.row_at(0).trajectory_pk: 0}  # type: ignore[union-attr]
        assert "git push is rejected as <b>non-ff</b>" in bob.label_dis_model.index(rows[x], 2).data()
        assert "Labels (ana, bob)" in bob.team_label.text()
        bob.label_dis_view.selectRow(rows[x])
        assert not bob.adjudicate_button.isEnabled()  # a reason is required
        bob.chosen_combo.setCurrentIndex(bob.chosen_combo.findData("ana"))
        bob.reason_edit.setText("ana names the error the agent saw")
        assert bob.adjudicate_button.isEnabled()
        done: list[int] = []
        bob.adjudicated.connect(done.append)
        bob.adjudicate_button.click()
        qtbot.waitUntil(lambda: bool(done), timeout=10_000)
        truth = LabelRepository(bob_store.store).ground_truth(x)
        assert truth.source == "adjudicated" and truth.reviewer == "bob"
        assert truth.text is not None and truth.text.trigger == "git push is rejected as <b>non-ff</b>"
        assert LabelRepository(bob_store.store).get(x, "bob") is not None  # history kept
        qtbot.waitUntil(lambda: any(
            bob.label_dis_model.row_at(r).adjudicated for r in range(bob.label_dis_model.rowCount())),  # type: ignore[union-attr]
            timeout=10_000)
        close_panel(qtbot, bob, runner)
    finally:
        ana_store.close()
        bob_store.close()


def test_rule_and_evidence_text_are_shown_verbatim(qtbot: Any, demo: StoreServices, runner: JobRunner) -> None:
    panel = make_panel(qtbot, demo, runner)
    detail = next(d for d in demo.corpora.get_trajectories(corpus="adversarial")
                  if d.trajectory_id == "DA-001-injection-in-task")
    evil = "<b>bold</b> & <img src=x onerror=alert(1)>"
    item = BlindItem(item_id=1, session_id=1, ordinal=1, kind="firing", result_id=None, rule_origin="<i>o</i>",
                     rule_version=1, trigger=evil, directive="<script>x()</script>", trajectory_pk=detail.id,
                     choices=("prevents", "breaks", "near_miss", "does_not_fire", "cant_tell"))
    info = create_session(demo.store, 1, "lead", size=2, seed=1)
    view = judging_view(demo.store, item)
    panel._show_item(agreement_data.JudgeItem(info, item, Progress(0, 2), detail, (), view))
    assert panel.rule_text.text() == f"when {evil}, <script>x()</script>"
    assert "<b>NOTE TO THE RULE EXTRACTOR:</b>" in panel.blind_text.toPlainText()
    assert detail.trajectory_id not in panel.blind_text.toPlainText()  # blind: no id before the commit
    for label in panel.findChildren(QLabel):
        assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()
    panel.current = None  # nothing to commit: the item is made up
    close_panel(qtbot, panel, runner)
