"""Review tab, beside a rule's replay evidence: where the rule fires at injection (0.3.1's
substring matcher, no domain filter) against replay's prevented / broken sets, precision on
that pool with its interval, and a badge when the rule's source trajectory is tainted.
Read through the window's database executor (``query``), never on the GUI thread."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QListWidget, QPushButton, QVBoxLayout, QWidget

from core.loop.injection import InjectionOverlap, PoolItem
from core.loop.views import CandidateTaint, candidate_taint, injection_for_run
from core.store.engine import Store

from cauterule_gui.plain_text import plain_label

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor


@dataclass(frozen=True)
class StripData:
    rule_id: int
    overlap: InjectionOverlap | None
    taint: CandidateTaint | None
    names: dict[int, str]  # pk -> "trajectory_id (corpus)"
    pool: list[PoolItem] = field(default_factory=list, compare=False, repr=False)  # the pool it used


def strip_data(store: Store, rule_id: int, run_id: int, pool: Sequence[PoolItem] | None = None) -> StripData:
    """The strip of one rule (``pool``: the injection pool when the caller has it already)."""
    from core.loop.views import injection_pool
    from core.store.corpus_repo import CorpusRepository

    items = list(pool) if pool is not None else injection_pool(store)
    overlap = injection_for_run(store, run_id, [rule_id], items).get(rule_id)
    taint = candidate_taint(store, [rule_id]).get(rule_id)
    pks = set(overlap.fired + overlap.prevented_not_fired + overlap.broken_not_fired) if overlap else set()
    names = {d.id: f"{d.trajectory_id} ({d.corpus})" for d in CorpusRepository(store).get_trajectories(sorted(pks))}
    return StripData(rule_id, overlap, taint, names, items)


def injection_text(o: InjectionOverlap | None) -> str:
    if o is None:
        return "Fires at injection on: not computed (the rule has no result in this run)."
    if not o.fired:
        return ("Fires at injection on: nothing — its trigger is not a substring of any task "
                f"(replay prevented {len(o.prevented_not_fired)}, broke {len(o.broken_not_fired)}).")
    def n(k: int, word: str) -> str:
        return f"{k} {word}" + ("" if k == 1 else "s")

    return (f"Fires at injection on {len(o.fired)} ({n(o.fired_failures, 'failure')}, "
            f"{n(o.fired_successes, 'success').replace('successs', 'successes')}) · "
            f"precision {o.precision.label()} · also prevented {len(o.also_prevented)} · also broken "
            f"{len(o.also_broken)} · injection only {len(o.fired_only)} · replay prevented but never fires "
            f"{len(o.prevented_not_fired)}")


def taint_text(t: CandidateTaint | None) -> str:
    if t is None or not t.report.tainted:
        return ""
    return f"⚠ Tainted source ({t.source_id}): {t.report.summary()} — approving needs a written justification."


class RuleLoopStrip(QWidget):
    shown = Signal(object)  # StripData

    def __init__(self, db: DatabaseExecutor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ruleLoopStrip")
        self._db = db
        self.data: StripData | None = None
        self._pool: tuple[object, list[PoolItem]] | None = None  # (the store's services, its injection pool)
        self.taint_label = plain_label("", self)
        self.taint_label.setObjectName("ruleTaintBadge")
        self.taint_label.setWordWrap(True)
        self.taint_label.setStyleSheet("QLabel { background: #fde7c8; color: #5a3600; padding: 3px; }")
        self.taint_label.hide()
        self.injection_label = plain_label("", self)
        self.injection_label.setObjectName("ruleInjection")
        self.injection_label.setWordWrap(True)
        self.details_button = QPushButton("Injection pool…", self)
        self.details_button.setObjectName("ruleInjectionDetails")
        self.details_button.clicked.connect(self.show_details)
        self.details_button.setEnabled(False)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.injection_label, 1)
        row.addWidget(self.details_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.taint_label)
        layout.addLayout(row)

    def show_rule(self, rule: Any) -> Any:
        """``rule``: a WorkspaceRule (or None). Read through the executor; drawn on return."""
        if rule is None or self._db.services() is None:
            self.data = None
            self.injection_label.setText("")
            self.taint_label.hide()
            self.details_button.setEnabled(False)
            return None
        rule_id, run_id = int(rule.rule_id), int(rule.run_id)
        pool = self._pool[1] if self._pool is not None and self._pool[0] is self._db.services() else None
        self.injection_label.setText("Fires at injection on: computing…")
        services = self._db.services()

        def shown(data: StripData) -> None:
            if self._pool is None or self._pool[0] is not services:
                self._pool = (services, data.pool)  # read once per store, not per rule
            self._show(data)

        return self._db.query(lambda s: strip_data(s.store, rule_id, run_id, pool), shown,
                              name="injection preview", key=f"rule-strip:{id(self)}",
                              on_error=lambda e: self.injection_label.setText(f"Fires at injection on: failed ({e})"))

    def show_hidden(self) -> None:
        """The rule is in the reviewer's unfinished blind session: no overlap with replay's buckets."""
        self.data = None
        self.injection_label.setText("Fires at injection on: hidden while this rule is in your blind session "
                                     "(it is compared with replay's answers)")
        self.taint_label.hide()
        self.details_button.setEnabled(False)

    def forget_pool(self) -> None:
        """The trajectories changed (an import): the next rule shown reads the pool again."""
        self._pool = None

    def set_pool(self, pool: list[PoolItem]) -> None:
        """The open store's injection pool (computed with the loop's data): not read per rule."""
        self._pool = (self._db.services(), pool)

    def _show(self, data: StripData) -> None:
        self.data = data
        self.injection_label.setText(injection_text(data.overlap))
        text = taint_text(data.taint)
        self.taint_label.setText(text)
        self.taint_label.setVisible(bool(text))
        self.details_button.setEnabled(bool(data.overlap and (data.overlap.fired or data.overlap.prevented_not_fired)))
        self.shown.emit(data)

    def detail_lines(self) -> list[str]:
        data = self.data
        if data is None or data.overlap is None:
            return []
        o, name = data.overlap, (lambda pk: data.names.get(pk, f"#{pk}"))
        return ([f"fires · replay prevented  {name(pk)}" for pk in o.also_prevented]
                + [f"fires · replay broken  {name(pk)}" for pk in o.also_broken]
                + [f"fires · replay: no effect  {name(pk)}" for pk in o.fired_only]
                + [f"never fires · replay prevented  {name(pk)}" for pk in o.prevented_not_fired]
                + [f"never fires · replay broken  {name(pk)}" for pk in o.broken_not_fired])

    def show_details(self) -> QDialog:
        dialog = QDialog(self)
        dialog.setObjectName("injectionPoolDialog")
        dialog.setWindowTitle("Where this rule fires at injection")
        listing = QListWidget(dialog)
        listing.addItems(self.detail_lines())
        layout = QVBoxLayout(dialog)
        layout.addWidget(plain_label(self.injection_label.text(), dialog))
        layout.addWidget(listing, 1)
        dialog.resize(700, 460)
        dialog.open()
        return dialog
