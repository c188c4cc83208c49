"""Wire the loop into the main window with hooks only (the panels stay owned by others):

* Corpus tab: a gate panel under the corpus navigator; the trajectory table's Gate and
  Source columns are filled and filtered from one chunked, cancellable scan of every
  trajectory (``core.loop.scan``, on the CPU pool). The scan is lazy: it starts only when the
  Corpus tab (gate panel, Gate column, detail badge) is shown, so it is never on the first
  window's path; a write that changes what it shows (``LOOP_KINDS``) or a store change makes
  it stale (rescanned now if shown, else at the next show). ``stop()`` (store switch, window
  close) cancels it: it stops within one chunk (a fraction of a second).
* Review tab: a strip above the evidence buckets (fires at injection, taint badge) and a
  taint badge delegate on the rule table's trigger column; the badges need only the rules'
  source trajectories (a short read, when a view with badges is shown).
* "New candidate from this failure…" (Ctrl+Shift+N, and the context menus of the trajectory
  and evidence tables) opens the candidate editor; a saved candidate is replayed alone so it
  appears in the Review tab and the promotion queue. The trajectory is read, and the
  candidate written (``executor.op``, kind ``rules``), through the window's executor.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QSplitter

from core.loop.scan import LoopScan, LoopScanCancelled, scan_loop
from core.loop.views import candidate_taint

from cauterule_gui.jobs.runner import JobContext, JobHandle, JobPool
from cauterule_gui.loop.candidate_editor import CandidateEditor
from cauterule_gui.loop.gate_panel import GatePanel, LoopData
from cauterule_gui.loop.rule_strip import RuleLoopStrip
from cauterule_gui.loop.taint_badge import TaintBadgeDelegate, install_badge
from cauterule_gui.plain_text import plain_label

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow

NEW_CANDIDATE_SHORTCUT = "Ctrl+Shift+N"
# Committed writes that change the gate and the taint badges. (The injection strip follows the
# rules table, which re-selects its rule, and so re-emits it, whenever it refreshes.)
LOOP_KINDS = frozenset({"corpora", "rules"})


class LoopController(QObject):
    loop_loaded = Signal(object)  # LoopData
    editor_opened = Signal(object)  # CandidateEditor

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.data: LoopData | None = None
        self.editor: CandidateEditor | None = None

        # Corpus tab: gate panel below the navigator (same splitter slot, so saved sizes still apply).
        # Parentless until replaceWidget: a QSplitter child would be appended as a section.
        left = QSplitter(Qt.Orientation.Vertical)
        left.setObjectName("loopLeftSplitter")
        self.left_splitter = left  # PySide does not see replaceWidget's reparenting: keep it alive
        window.splitter.replaceWidget(0, left)
        self.gate_panel = GatePanel()
        left.addWidget(window.navigator)
        left.addWidget(self.gate_panel)
        left.setChildrenCollapsible(False)
        left.setSizes([260, 420])
        # Success, Gate and Source right after the id (visual order only; the model's columns stay
        # appended): their words are whole on screen at 1280 px, the long text columns scroll.
        from cauterule_gui.glossary import GATE_REASONS, longest
        from cauterule_gui.models.trajectory_table_model import COL_GATE, COL_ID, COL_SUCCESS, COL_TRUST

        header = window.table_panel.view.horizontalHeader()
        for offset, column in enumerate((COL_SUCCESS, COL_GATE, COL_TRUST), start=1):
            header.moveSection(header.visualIndex(column), header.visualIndex(COL_ID) + offset)
        char = window.table_panel.view.fontMetrics().averageCharWidth()
        metrics = window.table_panel.view.fontMetrics()  # the widest gate word is never elided
        header.resizeSection(COL_GATE, max(metrics.horizontalAdvance(f"silenced ({longest(GATE_REASONS)})") + 16,
                                           21 * char + 16))
        header.resizeSection(COL_TRUST, 9 * char + 16)
        self.gate_panel.filter_changed.connect(self._apply_gate_filter)
        self.gate_panel.trajectory_requested.connect(self._open_trajectory)

        # Corpus tab detail pane: gate verdicts and the taint badge of the shown trajectory.
        self.trajectory_badge = plain_label("", window.viewer)
        self.trajectory_badge.setObjectName("trajectoryLoopBadge")
        self.trajectory_badge.setWordWrap(True)
        self.trajectory_badge.hide()
        window.viewer.layout().insertWidget(1, self.trajectory_badge)
        window.table_panel.trajectory_selected.connect(self._show_trajectory_badge)

        # Review tab: strip above the evidence buckets; badge on the rule table's trigger column.
        evidence = window.workspace.evidence
        self.strip = RuleLoopStrip(window.db, evidence)
        layout = evidence.layout()
        layout.insertWidget(layout.indexOf(evidence.status_label) + 1, self.strip)
        from cauterule_gui.models.rule_table_model import COL_TRIGGER, RULE_ID_ROLE

        self.rule_badge: TaintBadgeDelegate = install_badge(window.workspace.rules.view, COL_TRIGGER, RULE_ID_ROLE)
        window.workspace.rules.rule_selected.connect(self._on_rule_selected)
        if getattr(window, "blind", None) is not None:  # a rule hidden or revealed: the strip follows
            window.blind.changed.connect(lambda: self._on_rule_selected(window.workspace.rules.current_rule()))
        from cauterule_gui.models import promotion_queue_model as pq

        self.queue_badge = install_badge(window.workflows.promotion.view, pq.COL_TRIGGER, pq.RULE_ID_ROLE)

        # New candidate from this failure.
        self.new_candidate_action = QAction("New &candidate from this failure…", window)
        self.new_candidate_action.setShortcut(QKeySequence(NEW_CANDIDATE_SHORTCUT))
        self.new_candidate_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.new_candidate_action.triggered.connect(self.new_candidate)
        window.addAction(self.new_candidate_action)
        for view in (window.table_panel.view, evidence.view):
            view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
            view.addAction(self.new_candidate_action)

        self._scan: JobHandle | None = None
        self._scanned_for: object = None  # the services the current data (or running scan) is for
        self._taint_for: object = None  # the services the badges were computed for
        self._stale = True
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(100)
        self._reload_timer.timeout.connect(self.reload)
        # The corpus model resets on import, refresh and store switch: stale then.
        window.corpus_model.modelReset.connect(
            lambda: None if window.corpus_model.first_load else self._reload_timer.start())
        # Like every tab: committed writes of the kinds these views show refresh them.
        window.db.changes_applied.connect(self._changes_applied)
        # Nothing is computed here: the views that show it start it when they are shown.
        self.gate_panel.installEventFilter(self)
        for view in (window.workspace.rules.view, window.workflows.promotion.view):
            view.installEventFilter(self)
        QTimer.singleShot(0, self._shown_views_need)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show:
            QTimer.singleShot(0, self._shown_views_need)
        return False

    def _shown_views_need(self) -> None:
        if self.gate_panel.isVisible():
            self.ensure_scan()
        if self.rule_badge.parent().isVisible() or self.queue_badge.parent().isVisible():  # type: ignore[attr-defined]
            self.ensure_taint()

    def _changes_applied(self, kinds: frozenset[str], _initiator: object = None) -> None:
        if kinds & LOOP_KINDS:
            self._reload_timer.start()

    # -- gate / taint data ------------------------------------------------------------------
    def reload(self) -> Any:
        """What the loop shows is out of date: recompute what is shown now, the rest when shown."""
        self._stale = True
        self._taint_for = None
        self.strip.forget_pool()
        if self._scan is not None and self._scan.running:
            self._scan.supersede()
            self._scan = None
        self._shown_views_need()
        return self._scan

    def stop(self) -> None:
        """Cancel a running scan (store switch, window close); it stops within one chunk."""
        if self._scan is not None and self._scan.running:
            self._scan.supersede()
        self._scan = None
        self._stale = True

    @property
    def scanning(self) -> bool:
        return self._scan is not None and self._scan.running

    def ensure_scan(self) -> JobHandle | None:
        """Start the gate and taint scan unless its data (or a scan) for this store exists."""
        services = self.window.db.services()
        if services is None:
            return None
        if self._scanned_for is services and not self._stale:
            return self._scan
        if self._scan is not None and self._scan.running:
            self._scan.supersede()
        self._scanned_for, self._stale = services, False
        self.gate_panel.status.setText("Computing the gate over every trajectory…")

        def run(ctx: JobContext) -> LoopScan:
            try:
                # The short sleep between chunks hands the interpreter back to the GUI thread.
                return scan_loop(services.store, ctx.cancel_event, progress=ctx.progress,
                                 between_chunks=lambda: time.sleep(0.005))
            except LoopScanCancelled:
                ctx.raise_if_cancelled()
                raise

        handle = self.window.runner.submit(run, name="gate and taint", pool=JobPool.CPU,
                                           key=f"loop-scan:{id(self)}")
        handle.result.connect(lambda value, s=services: self._on_scan(s, value))
        self._scan = handle
        return handle

    def ensure_taint(self) -> Any:
        """Taint badges of the rules: only their source trajectories are read."""
        services = self.window.db.services()
        if services is None or self._taint_for is services:
            return None
        self._taint_for = services
        return self.window.db.query(lambda s: {rid: t.report.summary() for rid, t in candidate_taint(s.store).items()
                                               if t.report.tainted},
                                    self._on_taint, name="candidate taint", key="loop:taint")

    def _on_taint(self, tainted: dict[int, str]) -> None:
        for badge in (self.rule_badge, self.queue_badge):
            badge.set_tainted(tainted)
            badge.parent().viewport().update()  # type: ignore[attr-defined]

    def _on_scan(self, services: object, scan: LoopScan) -> None:
        if self.window.db.services() is not services or self._scanned_for is not services:
            return  # the store changed while it ran
        data = LoopData(scan.info, scan.summaries)
        self.data = data
        self.strip.set_pool(scan.pool)  # the strip compares a rule against it without reading it again
        self.window.trajectory_model.set_loop_info(data.info)
        self.gate_panel.show_data(data)
        self.loop_loaded.emit(data)

    def _show_trajectory_badge(self, pk: int) -> None:
        info = self.data.info.get(pk) if self.data is not None else None
        self.trajectory_badge.setVisible(info is not None)
        if info is None:
            return
        text = f"Gate: strict {info.strict.why if info.strict.silenced else 'extract'} · relaxed " \
               f"{info.relaxed.why if info.relaxed.silenced else 'extract'}"
        if info.taint.tainted:
            text = f"⚠ Tainted source: {info.taint.summary()}\n" + text
        self.trajectory_badge.setText(text)
        self.trajectory_badge.setStyleSheet("QLabel { background: #fde7c8; color: #5a3600; padding: 3px; }"
                                            if info.taint.tainted else "")

    def _apply_gate_filter(self, pks: tuple[int, ...] | None) -> None:
        model = self.window.trajectory_model
        model.set_filter(replace(model.filter, pks=pks))

    def _open_trajectory(self, pk: int) -> None:
        self.window.show_trajectory(pk)

    def _on_rule_selected(self, rule: Any) -> None:
        blind = getattr(self.window, "blind", None)
        if rule is not None and blind is not None and blind.hides(rule.origin):
            self.strip.show_hidden()  # "replay prevented / broke" are replay's answers: blind session
            return
        self.strip.show_rule(rule)

    # -- new candidate ----------------------------------------------------------------------
    def current_trajectory(self) -> int | None:
        window = self.window
        if window.tabs.currentWidget() is window.workspace:
            outcome = window.workspace.evidence.current_outcome()
            return outcome.trajectory_pk if outcome is not None else None
        return window.table_panel.current_pk()

    def new_candidate(self, pk: int | None = None) -> None:
        """Read the trajectory (off the GUI thread), then open the editor on it (``editor_opened``)."""
        window = self.window
        pk = pk if isinstance(pk, int) and not isinstance(pk, bool) else self.current_trajectory()
        if window.services is None or pk is None:
            window.statusBar().showMessage("Select a trajectory first (Corpus tab, or a row of the evidence).", 8000)
            return
        window.db.query(lambda s: s.corpora.get_trajectory(pk), self._open_editor, name="candidate source",
                        key="loop:candidate")

    def _open_editor(self, detail: Any) -> None:
        window = self.window
        if detail is None:
            window.statusBar().showMessage("That trajectory is no longer in the store.", 8000)
            return
        editor = CandidateEditor(window.db, detail, window._settings,  # noqa: SLF001 - the window's settings
                                 window.identity.require, window)
        editor.saved.connect(self._on_saved)
        editor.finished.connect(lambda _r: editor.deleteLater())
        self.editor = editor
        editor.open()
        self.editor_opened.emit(editor)

    def _on_saved(self, rule_id: int) -> None:
        window = self.window
        window.statusBar().showMessage(f"Candidate rule {rule_id} saved; replaying it…", 8000)
        window.replay.start(f"new candidate {rule_id}", [rule_id])  # its write announced "rules": the badges reload


def install_loop(window: MainWindow) -> LoopController:
    return LoopController(window)
