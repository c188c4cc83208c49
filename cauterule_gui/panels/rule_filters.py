"""The rules table's filter bar: verdict, reason, domain, corpus and status combo boxes and the
debounced free text; their choices read off the GUI thread; the filter as the model takes it
and as QSettings keeps it. A mixin of ``RuleTablePanel`` (the widgets live on the panel).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QComboBox, QLineEdit

from core.store.result_repo import ResultRepository
from core.store.workspace_query import WorkspaceFilter

from cauterule_gui.models.rule_table_model import RuleTableModel
from cauterule_gui.panels.rule_table_widths import filter_combo

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

FILTER_DEBOUNCE_MS = 250
STATUS_CHOICES = (("Any status", None), ("Unreviewed", "unreviewed"), ("Approved", "approve"),
                  ("Rejected", "reject"), ("Deferred", "defer"))


class RuleFilters:
    """The filter bar of ``RuleTablePanel`` (a mixin: the host is the panel widget)."""

    model: RuleTableModel
    _repo: ResultRepository | None
    _db: DatabaseExecutor | None
    current_rule_id: Callable[[], int | None]
    _refresh_then: Callable[[Callable[[], None], Callable[[], None]], None]
    _reselect: Callable[[int | None, int | None], None]
    _update_labels: Callable[[], None]

    def _build_filters(self) -> None:
        self.verdict_combo = filter_combo("verdictFilter", "All verdicts", self)
        self.reason_combo = filter_combo("reasonFilter", "All reasons", self)
        self.domain_combo = filter_combo("domainFilter", "All domains", self)
        self.corpus_combo = filter_combo("corpusFilter", "All corpora", self)
        self.status_combo = QComboBox(self)
        self.status_combo.setObjectName("statusFilter")
        self.status_combo.setAccessibleName("Review status")
        for text, value in STATUS_CHOICES:
            self.status_combo.addItem(text, value)
        self.text_edit = QLineEdit(self)
        self.text_edit.setObjectName("ruleFilter")
        self.text_edit.setAccessibleName("Filter rules")
        self.text_edit.setPlaceholderText("Filter trigger, directive, rule file  ( / )")
        self.text_edit.setClearButtonEnabled(True)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(FILTER_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.apply_filter_now)
        self.text_edit.textChanged.connect(lambda _t: self._debounce.start())
        self.text_edit.returnPressed.connect(self.apply_filter_now)
        for combo in (self.verdict_combo, self.reason_combo, self.domain_combo, self.corpus_combo,
                      self.status_combo):
            combo.activated.connect(lambda _i: self.apply_filter_now())

    def refresh_options(self) -> None:
        repo = self._repo
        if repo is None:
            return
        scope, hidden = self.model.scope, self.model.blind  # no verdict only hidden rules have
        if self._db is None:
            self._show_options(repo.filter_options(scope, hidden))
        else:
            self._db.query(lambda _services: repo.filter_options(scope, hidden), self._show_options,
                           name="rule filter choices", key=f"rule-options:{id(self)}")

    def _show_options(self, options: Any) -> None:
        for combo, key in ((self.verdict_combo, "verdict"), (self.reason_combo, "reason"),
                           (self.domain_combo, "domain"), (self.corpus_combo, "corpus")):
            current = combo.currentData()
            values = list(options.get(key, []))
            if current is not None and current not in values:
                values.append(current)  # keep a restored filter visible even if nothing matches now
            combo.blockSignals(True)
            while combo.count() > 1:
                combo.removeItem(1)
            for value in values:
                combo.addItem(value, value)
            combo.setCurrentIndex(max(0, combo.findData(current)) if current is not None else 0)
            combo.blockSignals(False)
        self._update_labels()

    # -- filters -----------------------------------------------------------------------
    def current_filter(self) -> WorkspaceFilter:
        return WorkspaceFilter(
            verdict=self.verdict_combo.currentData(), reason=self.reason_combo.currentData(),
            domain=self.domain_combo.currentData(), corpus=self.corpus_combo.currentData(),
            status=self.status_combo.currentData(), text=self.text_edit.text().strip(),
        )

    def apply_filter_now(self) -> None:
        self._debounce.stop()
        keep = self.current_rule_id()
        flt = self.current_filter()
        self._refresh_then(lambda: self._reselect(keep, 0), lambda: self.model.set_filter(flt))

    def filter_state(self) -> dict[str, str]:
        flt = self.current_filter()
        return {k: v or "" for k, v in (("verdict", flt.verdict), ("reason", flt.reason), ("domain", flt.domain),
                                        ("corpus", flt.corpus), ("status", flt.status), ("text", flt.text))}

    def restore_filter_state(self, state: dict[str, Any]) -> None:
        for combo, key in ((self.verdict_combo, "verdict"), (self.reason_combo, "reason"),
                           (self.domain_combo, "domain"), (self.corpus_combo, "corpus"),
                           (self.status_combo, "status")):
            value = str(state.get(key) or "")
            if not value:
                combo.setCurrentIndex(0)
                continue
            if combo.findData(value) < 0:
                combo.addItem(value, value)
            combo.setCurrentIndex(combo.findData(value))
        self.text_edit.setText(str(state.get("text") or ""))
        self.apply_filter_now()

    def focus_filter(self) -> None:
        self.text_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.text_edit.selectAll()
