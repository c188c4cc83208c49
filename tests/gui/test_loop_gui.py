"""The loop in the window: gate column and filter, taint badges, injection strip, the
cross-session card, and writing a candidate that reaches the Review tab and the queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QDialogButtonBox

from cauterule_gui.loop.taint_badge import BADGE
from cauterule_gui.main_window import MainWindow
from cauterule_gui.models.trajectory_table_model import COL_GATE, COL_TRUST


def _loaded(qtbot: Any, window: MainWindow) -> None:
    """The gate scan is lazy: showing the Corpus tab (gate panel, Gate column) starts it."""
    current = window.tabs.currentWidget()
    window.tabs.setCurrentWidget(window.splitter)
    qtbot.waitUntil(lambda: window.loop.data is not None, timeout=30_000)
    window.tabs.setCurrentWidget(current)


def _open_editor(qtbot: Any, window: MainWindow, pk: int) -> Any:
    """The trajectory is read through the executor, then the editor opens (``editor_opened``)."""
    with qtbot.waitSignal(window.loop.editor_opened, timeout=30_000) as opened:
        window.loop.new_candidate(pk)
    return opened.args[0]


def _table_ids(window: MainWindow) -> set[str]:
    model = window.trajectory_model
    return {model.summary(r).trajectory_id for r in range(model.rowCount())}  # type: ignore[union-attr]


def test_gate_column_and_filter_on_the_corpus_tab(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    _loaded(qtbot, window)
    model = window.trajectory_model
    cells = {model.summary(r).trajectory_id: (model.index(r, COL_GATE).data(), model.index(r, COL_TRUST).data())
             for r in range(model.rowCount())}
    assert cells["DF-GIT-001-push-non-ff"] == ("extract", "clean")
    assert cells["DA-002-tool-output-injection"][1] == "⚠ tainted"
    assert {v[0] for k, v in cells.items() if k.startswith("DS-")} == {"silenced (no signal)"}
    window.loop.gate_panel.set_filter("strict_silenced")
    qtbot.waitUntil(lambda: len(_table_ids(window)) == 18)
    assert {i[:3] for i in _table_ids(window)} == {"DS-", "DN-"}
    window.loop.gate_panel.set_filter("tainted")
    qtbot.waitUntil(lambda: {i[:3] for i in _table_ids(window)} == {"DA-"})
    window.loop.gate_panel.set_filter("all")
    qtbot.waitUntil(lambda: len(_table_ids(window)) == len(cells))


def test_gate_panel_lists_silence_rates_with_intervals(qtbot: Any, review_window: MainWindow) -> None:
    _loaded(qtbot, review_window)
    table = review_window.loop.gate_panel.table
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows["successes"].startswith("12/12 · 1.00 [0.76–1.00]")
    assert review_window.loop.gate_panel.disagreements.count() == 0  # the demo's labels agree with the gate


def test_review_strip_shows_injection_and_taint_badge(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    _loaded(qtbot, window)
    strip = window.loop.strip
    qtbot.waitUntil(lambda: strip.data is not None, timeout=30_000)
    assert strip.injection_label.text().startswith("Fires at injection on")
    # The demo's adversarial DA-002 has a tool-output payload; a candidate from it is tainted.
    detail = next(d for d in window.services.corpora.get_trajectories() if d.trajectory_id.startswith("DA-002"))
    from core.loop.candidates import create_candidate

    rule_id = create_candidate(window.services.store, detail.id, "web page", "refuse hidden instructions", "t").rule_id
    window.loop.reload()
    qtbot.waitUntil(lambda: rule_id in window.loop.rule_badge.tainted, timeout=30_000)


def test_writing_a_candidate_reaches_review_and_the_queue(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    _loaded(qtbot, window)
    window.tabs.setCurrentWidget(window.splitter)
    pk = next(d.id for d in window.services.corpora.get_trajectories() if d.trajectory_id == "DF-GIT-001-push-non-ff")
    editor = _open_editor(qtbot, window, pk)
    assert editor.trigger_edit.toPlainText()  # prefilled
    qtbot.waitUntil(lambda: editor.last_preview is not None, timeout=30_000)
    editor.trigger_edit.setPlainText("git push is rejected as non-fast-forward")
    editor.directive_edit.setPlainText("pull --rebase, then push again")
    with qtbot.waitSignal(editor.preview_shown, timeout=30_000) as shown:
        pass
    assert shown.args[0].prevented  # the live buckets follow the typed text
    assert editor.buckets.count() >= 1
    with qtbot.waitSignal(window.replay.replay_done, timeout=120_000):
        editor.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    rule_id = editor.saved_rule_id
    assert rule_id is not None
    info = window.services.rules.get(rule_id)
    assert info is not None and info.latest.author == "tester" and info.source_trajectory_pk == pk
    rules = window.workspace.rules
    from cauterule_gui.models.rule_table_model import RULE_ID_ROLE

    qtbot.waitUntil(lambda: any(rules.model.index(r, 0).data(RULE_ID_ROLE) == rule_id
                                for r in range(rules.model.rowCount())), timeout=30_000)
    promotion = window.workflows.promotion
    window.tabs.setCurrentWidget(promotion)
    qtbot.waitUntil(lambda: promotion.model.row_for_rule(rule_id) >= 0, timeout=60_000)


def test_cross_session_card_draws_the_demo(qtbot: Any, window: MainWindow) -> None:
    metrics = window.workflows.metrics
    window.tabs.setCurrentWidget(metrics)
    card = metrics.panel.cross_session  # type: ignore[union-attr]
    card.load_demo()
    qtbot.waitUntil(lambda: card.result is not None, timeout=30_000)
    assert card.result["reduction"] == 0.5
    assert "reduction 0.500" in card.summary.text() and card.classes.rowCount() >= 3
    assert card.card.figure.axes and card.card.figure.axes[0].get_xlabel() == "session"


def test_the_cross_session_measurement_is_kept_through_the_executor(qtbot: Any, window: MainWindow) -> None:
    from core.loop.saved import load_cross_session

    card = window.workflows.metrics.panel.cross_session  # type: ignore[union-attr]
    announced: list[frozenset[str]] = []
    window.db.changes_applied.connect(lambda kinds, _by: announced.append(kinds))
    card.load_demo()
    qtbot.waitUntil(lambda: frozenset({"measurements"}) in announced, timeout=30_000)
    kept = load_cross_session(window.services.store)
    assert kept is not None and kept["reduction"] == card.result["reduction"] == 0.5


def test_a_committed_rule_write_reloads_the_taint_badges(qtbot: Any, review_window: MainWindow) -> None:
    """The loop views refresh on the kinds they show, like every tab: no explicit reload."""
    window = review_window
    _loaded(qtbot, window)
    detail = next(d for d in window.services.corpora.get_trajectories() if d.trajectory_id.startswith("DA-002"))
    from core.loop.candidates import create_candidate

    created: list[int] = []
    window.db.op(lambda s: create_candidate(s.store, detail.id, "web page", "refuse hidden instructions", "t"),
                 lambda c: created.append(c.rule_id), kinds={"rules"})
    qtbot.waitUntil(lambda: bool(created) and created[0] in window.loop.rule_badge.tainted, timeout=30_000)


def test_bad_session_file_is_shown_plainly(qtbot: Any, window: MainWindow, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"session": "x", "success": false, "failure_class": "a"}\n')
    card = window.workflows.metrics.panel.cross_session  # type: ignore[union-attr]
    card.baseline_edit.setText(str(bad))
    card.intervention_edit.setText(str(bad))
    card.run()
    qtbot.waitUntil(lambda: "Cannot read the session files" in card.summary.text(), timeout=30_000)
    assert f"{bad}:1 [session]" in card.summary.text()


def test_taint_badge_prefixes_the_trigger_cell(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    _loaded(qtbot, window)
    badge = window.loop.rule_badge
    view = window.workspace.rules.view
    from PySide6.QtWidgets import QStyleOptionViewItem

    from cauterule_gui.models.rule_table_model import COL_TRIGGER, RULE_ID_ROLE

    index = view.model().index(0, COL_TRIGGER)
    badge.set_tainted({int(index.data(RULE_ID_ROLE)): "task: jailbreak"})
    option = QStyleOptionViewItem()
    badge.initStyleOption(option, index)
    assert option.text.startswith(BADGE)


def _llm_server(reply: bytes, status: int = 200) -> Any:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(status)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _editor(qtbot: Any, window: MainWindow, url: str | None) -> Any:
    from core.loop.suggest import SuggestConfig

    from cauterule_gui.loop.llm_settings import save_config

    save_config(window._settings, SuggestConfig(url or "", timeout=5))  # noqa: SLF001
    pk = next(d.id for d in window.services.corpora.get_trajectories() if d.trajectory_id == "F-002-push-rejected")
    editor = _open_editor(qtbot, window, pk)
    qtbot.waitUntil(lambda: editor.last_preview is not None, timeout=30_000)
    return editor


def test_suggest_is_off_until_configured(qtbot: Any, window: MainWindow) -> None:
    editor = _editor(qtbot, window, None)
    assert not editor.suggest_button.isEnabled() and "Suggest is off" in editor.suggest_label.text()
    editor.reject()


def test_suggest_fills_the_editor_from_the_endpoint(qtbot: Any, window: MainWindow) -> None:
    import json

    content = 'Here: {"when": {"trigger": "push rejected by remote"}, "do": {"directive": "fetch and rebase"}, ' \
              '"confidence": 0.7, "reasoning": "remote moved"}'
    server = _llm_server(json.dumps({"choices": [{"message": {"content": content}}]}).encode())
    try:
        editor = _editor(qtbot, window, f"http://127.0.0.1:{server.server_address[1]}/v1")
        editor.request_suggestion()
        qtbot.waitUntil(lambda: editor.trigger_edit.toPlainText() == "push rejected by remote", timeout=30_000)
        assert editor.directive_edit.toPlainText() == "fetch and rebase"
        assert "confidence 0.70" in editor.suggest_label.text()
        editor.reject()
    finally:
        server.shutdown()
        server.server_close()


def test_suggest_shows_the_endpoint_error_plainly(qtbot: Any, window: MainWindow) -> None:
    server = _llm_server(b"backend exploded", status=500)
    try:
        editor = _editor(qtbot, window, f"http://127.0.0.1:{server.server_address[1]}/v1")
        editor.request_suggestion()
        qtbot.waitUntil(lambda: "Suggest failed" in editor.suggest_label.text(), timeout=30_000)
        assert "HTTP 500" in editor.suggest_label.text() and "backend exploded" in editor.suggest_label.text()
        assert editor.trigger_edit.toPlainText()  # the draft is untouched
        editor.reject()
    finally:
        server.shutdown()
        server.server_close()


def test_detail_pane_shows_gate_and_taint_of_the_trajectory(qtbot: Any, review_window: MainWindow) -> None:
    window = review_window
    _loaded(qtbot, window)
    window.tabs.setCurrentWidget(window.splitter)
    pk = next(d.id for d in window.services.corpora.get_trajectories() if d.trajectory_id.startswith("DA-001"))
    window.table_panel.trajectory_selected.emit(pk)
    text = window.loop.trajectory_badge.text()
    assert text.startswith("⚠ Tainted source: task: ignore previous instructions") and "Gate: strict extract" in text
