"""The workflow tabs beyond review: Label, Agreement, Promotion, Metrics and Lab.

Kept out of ``main_window.py`` so the window stays wiring only: this object builds the four
panels and registers each with the window's ``TabRegistry`` (title and the change kinds it
refreshes on: the executor's ``changes_applied`` reaches it there), and holds their File-menu
actions and the hooks the window calls when the store switches or the window closes.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QPalette
from PySide6.QtWidgets import QMainWindow, QStackedWidget, QVBoxLayout, QWidget

from cauterule_gui import theme
from cauterule_gui.column_fit import ColumnFit
from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.export_actions import export_rule_store_interactive
from cauterule_gui.glossary import VERDICT_REASONS, longest
from cauterule_gui.jobs import JobRunner
from cauterule_gui.models import promotion_queue_model as pq
from cauterule_gui.panels.agreement import AgreementPanel
from cauterule_gui.panels.lab_panel import LabPanel
from cauterule_gui.panels.labelling import LabellingPanel
from cauterule_gui.panels.metrics_dashboard import MetricsDashboardPanel
from cauterule_gui.panels.promotion import PromotionPanel
from cauterule_gui.publish_actions import publish_interactive
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices
from cauterule_gui.tab_registry import TabRegistry

KEY_LABEL_SEMANTIC = "label/semantic"  # set only when the reviewer ticks or unticks the box
# The agreement cell's numbers are read whole (a gate shown as "0.25 […] < 0.80" says nothing).
# Code words (verdict reason, decision and state) are never elided: their columns are sized
# to the widest glossary word; the text columns share the rest.
PROMOTION_FIXED = {pq.COL_VERDICT: longest(VERDICT_REASONS, "? "), pq.COL_STALE: "⚠ stale",
                   pq.COL_AGREEMENT: "⚠ 0.00 [0.00–0.00] spans 0.80 · run", pq.COL_GROUP: "human approval required",
                   pq.COL_DECISION: "✓ approved · superseded",
                   pq.COL_BROKEN: "✗ 88/88 unreviewed"}  # was flexible: squeezed to "✗ 3 of 3 unrevie…"
# Ten columns do not fit 1280 px whole: the rule and its trigger get room to be read (floors of
# 32 and 30 characters: a rule's file name whole, "C-03-docker-base-image-timeout"), and while
# they would get less, Stale, Near-duplicates and Conflicts give way, in that order (at 1280 all
# three). Each is said elsewhere: the Queue cell words a stale approval ("approved, stale: …")
# and a failing gate ("not ready: duplicates failing"), the Rule and Trigger tooltips list every
# column, the detail pane every gate. Right-click the header to show or hide any column (kept
# in QSettings, ``session_state``).
PROMOTION_FLEXIBLE = {pq.COL_RULE: (1.0, 32), pq.COL_TRIGGER: (2.5, 30),
                      pq.COL_DUPLICATES: (0.6, 6),
                      pq.COL_CONFLICTS: (0.6, 6)}
PROMOTION_GIVE_WAY = (pq.COL_STALE, pq.COL_DUPLICATES, pq.COL_CONFLICTS)


class MetricsTab(QWidget):
    """Holds the dashboard; it is rebuilt for each store and refreshed only when shown
    (computing its figures replays mismatched pairs, which is not free)."""

    def __init__(self, runner: JobRunner, parent: QWidget | None = None, db: DatabaseExecutor | None = None) -> None:
        super().__init__(parent)
        self._runner, self._db = runner, db
        self._stack = QStackedWidget(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._stack)
        self.panel: MetricsDashboardPanel | None = None
        self._stale = True

    def set_services(self, services: StoreServices | None) -> None:
        if self.panel is not None:
            self._stack.removeWidget(self.panel)
            self.panel.deleteLater()
            self.panel = None
        if services is not None:
            self.panel = MetricsDashboardPanel(services, self._runner, self, db=self._db)
            self._stack.addWidget(self.panel)
        self._stale = True

    def keys_home(self) -> QWidget | None:
        """Ctrl+7: the figures' scroll area (arrows scroll), not the Semantic check box."""
        return self.panel.scroll if self.panel is not None else None

    def mark_stale(self) -> None:
        self._stale = True

    def refresh_now(self) -> None:
        self._stale = True
        self.refresh_if_stale()

    def refresh_if_stale(self) -> None:
        if self.panel is not None and self._stale:
            self._stale = False
            self.panel.refresh()


class WorkflowTabs:
    def __init__(self, window: QMainWindow, registry: TabRegistry, db: DatabaseExecutor, identity: ReviewerIdentity,
                 show_status: Callable[[str], None], show_rule_in_review: Callable[[int], None]) -> None:
        tabs = registry.tabs
        self._tabs = tabs
        services = db.services
        self._services = services
        runner = db.runner
        self._runner, self._db = runner, db
        self._identity = identity
        self._window = window
        self._semantic_pending = False
        self.labelling = LabellingPanel(services, runner, identity, window)
        self.agreement = AgreementPanel(services, runner, identity, window)
        self.promotion = PromotionPanel(services, runner, identity, window)
        for panel in (self.labelling, self.agreement, self.promotion):
            panel.use_executor(db)
        self.metrics = MetricsTab(runner, window, db)
        self.metrics.set_services(services())
        # Each tab, once: what it shows decides which committed writes refresh it.
        registry.register(self.labelling, "Label", kinds={"labels", "corpora", "agreement"},
                          refresh=self.labelling.reload, focus=self.labelling.keys_home)
        registry.register(self.agreement, "Agreement", kinds={"agreement", "replay", "labels", "corpora"},
                          refresh=self.agreement.refresh, focus=self.agreement.keys_home)
        registry.register(self.promotion, "Promotion",
                          kinds={"decisions", "promotion", "replay", "rules", "agreement", "marks"},
                          refresh=self.promotion.refresh, focus=lambda: self.promotion.view)
        registry.register(self.metrics, "Metrics", kinds={"decisions", "promotion", "replay", "labels", "agreement"},
                          refresh=self.metrics.refresh_now, focus=self.metrics.keys_home)
        # The calibration lab (issue 26): its sweep is a job; Ctrl+8 lands on its settings table.
        self.lab = LabPanel(db, runner, identity, window)
        registry.register(self.lab, "Lab", kinds={"promotion", "replay"}, refresh=self.lab.refresh,
                          focus=lambda: self.lab.table)
        self.lab.adopted.connect(lambda label: show_status(f"Adopted replay profile {label}"))
        for panel in (self.labelling, self.agreement, self.promotion):
            panel.status_message.connect(lambda text: show_status(text))
        self.promotion.review_requested.connect(show_rule_in_review)
        tabs.currentChanged.connect(self._on_tab_changed)
        # The promotion queue's Decision column stays on screen at 1280 px (its panel is H17's).
        self.promotion_fit = ColumnFit(self.promotion.view, PROMOTION_FIXED, PROMOTION_FLEXIBLE, PROMOTION_GIVE_WAY)
        self.promotion_fit.offer_column_menu(pq.COL_RULE)
        # The Label tab lists its rows when it is first shown (at start if it is in front), not
        # after View ▸ Refresh; hidden at start, its reads (0.4-12 s each at 10^5 trajectories)
        # would compete with the first window's.
        self._labels_due = False
        self._refresh_labelling()

        self.export_rules_action = QAction("E&xport rule store…", window)
        self.export_rules_action.setStatusTip("Write the standing rules as a CauterRule 0.3.1 rule store folder")
        self.export_rules_action.triggered.connect(lambda _c=False: self.export_rule_store())
        self.publish_action = QAction("&Publish to rule store…", window)
        self.publish_action.setStatusTip("Bring a real CauterRule rule store (imported before) up to date with "
                                         "the decisions made here: a dry run first, nothing written without Publish")
        self.publish_action.triggered.connect(lambda _c=False: self.publish_to_rule_store())
        self.export_work_action = QAction("Export my review &work…", window)
        self.export_work_action.triggered.connect(lambda _c=False: self.agreement.export_dialog())
        self.import_work_action = QAction("Import a reviewer's wor&k…", window)
        self.import_work_action.triggered.connect(lambda _c=False: self.agreement.import_dialog())

    @property
    def file_actions(self) -> list[QAction]:
        return [self.labelling.export_action, self.export_rules_action, self.publish_action, self.export_work_action,
                self.import_work_action]

    def export_rule_store(self) -> None:
        services = self._services()
        if services is not None:
            export_rule_store_interactive(self._window, self._db)

    def publish_to_rule_store(self) -> None:
        if self._services() is not None:
            publish_interactive(self._window, self._db, lambda: self._identity.name)

    def _refresh_labelling(self) -> None:
        if self._tabs.currentWidget() is self.labelling:
            self._labels_due = False
            self.labelling.refresh()
        else:
            self._labels_due = True

    def _on_tab_changed(self, _index: int) -> None:
        current = self._tabs.currentWidget()
        self._apply_pending_semantic()
        if current is self.labelling and self._labels_due:
            self._refresh_labelling()
        elif current is self.promotion:
            self.promotion.refresh()
        elif current is self.metrics:
            self.metrics.refresh_if_stale()
        elif current is self.agreement:
            self.agreement.refresh()
        elif current is self.lab:
            self.lab.refresh()

    # -- hooks the window calls -------------------------------------------------------
    def refresh(self) -> None:
        self._refresh_labelling()
        self.agreement.refresh()
        self.promotion.refresh()
        self.metrics.mark_stale()

    def model_ready(self, settings: QSettings) -> None:
        """The embedding model loaded: semantic label feedback goes on, unless the reviewer
        turned it off themselves (that choice is remembered)."""
        if settings.value(KEY_LABEL_SEMANTIC) is None and not self.labelling.semantic_box.isChecked():
            # Ticked when the Label tab is in front: scoring loads the model into this process
            # too (~250 MB), which a session that never labels should not pay for.
            self._semantic_pending = True
            self._apply_pending_semantic()

    def _apply_pending_semantic(self) -> None:
        if self._semantic_pending and self._tabs.currentWidget() is self.labelling:
            self._semantic_pending = False
            self.labelling.semantic_box.setChecked(True)

    def remember_semantic_choice(self, settings: QSettings) -> None:
        box = self.labelling.semantic_box
        box.clicked.connect(lambda on: settings.setValue(KEY_LABEL_SEMANTIC, bool(on)))
        chosen = settings.value(KEY_LABEL_SEMANTIC)
        if chosen is not None:
            box.setChecked(str(chosen).lower() in ("true", "1"))

    def colours_changed(self) -> None:
        """Theme switched: the promotion strip (its panel paints it once, with the swatch of
        its message kind) is re-painted with the same swatch of the new scheme; the Label tab's
        trajectory is rendered again in the new colours."""
        self.labelling.viewer.rerender()
        strip = self.promotion.message
        background = strip.palette().color(QPalette.ColorRole.Window)
        for name in ("pass", "fail", "inconclusive", "missed"):
            if any(table[name].background == background for table in (theme._LIGHT, theme._DARK)):
                colours = theme.swatch(name)
                palette = strip.palette()
                if colours is not None:
                    palette.setColor(QPalette.ColorRole.Window, colours.background)
                    palette.setColor(QPalette.ColorRole.WindowText, colours.foreground)
                    strip.setPalette(palette)
                return

    def flush(self) -> None:
        """Before the window closes or the store changes: no typed label may be lost."""
        self.labelling.flush()

    def store_switched(self, services: StoreServices) -> None:
        self.metrics.set_services(services)
        self.lab.reset()
        self.refresh()
