"""What if: try an edited rule as a draft, then apply it (a new version, replayed) or discard it.

**Try draft** replays the unsaved text in a replay child (``ReplayController.start_draft``:
the window's profile and semantic setting, ``core.decisions.whatif_draft``), off the GUI
thread with progress and cancel, and lists verdict and counts before → after and every
trajectory whose bucket would change against the result the reviewer was looking at. Nothing
is written: no version, no run, nothing the metrics, the report or the gates read.
**Apply** saves the text (``core.decisions.save_whatif_edit``, which decides whether it is a
new version, with its audit event) and replays that rule alone, as before: the run becomes the
rule's newest. **Discard** / Esc closes; the store is as it was.

The rule text is read, the edit saved and the moves read through the window's database
executor; the GUI thread only shows. The edit names the rule's row version the reviewer saw
(or their own last write's): an edit made after another reviewer's decision or edit opens the
conflict dialog (``review_conflicts``) instead of saving over it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from core.decisions import DraftSummary, WhatIfEdit, save_whatif_edit
from core.domain.errors import ConcurrentChangeError
from core.store.workspace_query import WorkspaceRule, WorkspaceScope

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.glossary import word
from cauterule_gui.jobs import JobFailure, JobHandle
from cauterule_gui.jobs.replay_job import ReplayDone
from cauterule_gui.models.formatting import VERDICT_TEXT
from cauterule_gui.panels.whatif_dialog import WhatIfDialog
from cauterule_gui.replay_controller import ReplayController
from cauterule_gui.review_conflicts import ConflictDialog, ask_conflict, versions_for
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


def _counts_text(counts: dict[str, int] | None) -> str:
    if counts is None:
        return "—"
    return " / ".join(f"{counts.get(b, 0)}" for b in ("prevented", "broken", "near_miss", "missed"))


def draft_text(draft: DraftSummary) -> str:
    """Before → after of a draft, in words: what the dialog says above the moves."""
    before = (f"{VERDICT_TEXT.get(draft.before_verdict, draft.before_verdict)} ({word(draft.before_reason or '')})"
              if draft.before_verdict is not None else "—")
    after = f"{VERDICT_TEXT.get(draft.verdict, draft.verdict)} ({word(draft.reason)})"
    n = len(draft.moves)
    against = f" ({draft.before_run})" if draft.before_run else ""
    return (f"Draft (not saved; profile {draft.profile}, semantic {draft.semantic_state}) against "
            f"v{draft.before_version or draft.base_version}{against}: verdict {before} → {after}; "
            "prevented / broken / near / missed "
            f"{_counts_text(draft.before_counts)} → {_counts_text(draft.counts)}; "
            f"{n} trajector{'y' if n == 1 else 'ies'} would change bucket. Apply saves it; Discard forgets it.")


BLIND_REFUSAL = ("What if is not offered for this rule now: it is in your unfinished blind agreement session, "
                 "and a What-if shows replay's answers (verdict, buckets). Finish the session, or choose "
                 "\"Show evidence anyway\" on its evidence board first.")


class WhatIfController(QObject):
    moves_shown = Signal(object)  # list[BucketMove]
    draft_shown = Signal(object)  # DraftSummary
    status_message = Signal(str)

    def __init__(self, db: DatabaseExecutor, replay: ReplayController,
                 identity: ReviewerIdentity, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self.db = db
        self._replay = replay
        self._identity = identity
        self._parent = dialog_parent
        self.dialog: WhatIfDialog | None = None
        self._rule: WorkspaceRule | None = None
        self._before_result: int | None = None
        self._waiting_run = False
        self.draft_handle: JobHandle | None = None
        self.blind: Any = None  # the window's BlindGuard (blind_guard.py), when installed
        self.conflict_dialog: ConflictDialog | None = None
        replay.replay_finished.connect(self._on_replay_finished)

    def open(self, rule: WorkspaceRule | None, proposal: Any = None) -> None:
        """Open the dialog on the rule's latest text once it is read; with ``proposal`` (a
        ``SplitProposal`` offered when a one-sentence rule was approved), on the proposed halves."""
        if rule is None:
            return
        if self.blind is not None and self.blind.hides(rule.origin):
            self.status_message.emit(BLIND_REFUSAL)  # blind means blind: the dialog would show the answers
            return
        self.db.query(lambda s: s.rules.get(rule.rule_id), lambda info: self._show(rule, info, proposal),
                      name="what-if rule text")

    def _show(self, rule: WorkspaceRule, info: Any, proposal: Any = None) -> None:
        if info is None or self.dialog is not None:
            return
        self._rule = rule
        self._before_result = rule.result_id
        title = (f"{rule.origin} — shown: v{rule.version}, run #{rule.run_id}, "
                 f"{VERDICT_TEXT.get(rule.verdict, rule.verdict)} ({word(rule.reason)})")
        if rule.group_size > 1:
            # E on a collapsed duplicate group edits ONE rule: say which, and what the others keep.
            title += (f"\n\nThis row stands for ×{rule.group_size} duplicates (the same trigger and "
                      f"directive). Apply saves a new version of {rule.origin} only; the other "
                      f"{rule.group_size - 1} keep their text and their results. Expand the group (→) "
                      "to edit another one.")
        trigger, directive = info.latest.trigger, info.latest.directive
        if proposal is not None:
            # Trigger and directive were one sentence: offer the split, the reviewer edits it, and
            # Try draft shows what the split changes; Apply saves it as a new version and replays it.
            title += "\nTrigger and directive were one sentence, which fires on no task: proposed split below."
            trigger, directive = proposal.trigger, proposal.directive
        dialog = WhatIfDialog(title, trigger, directive, self._parent)
        dialog.draft_requested.connect(self.try_draft)
        dialog.apply_requested.connect(self.apply)
        dialog.cancel_requested.connect(self.cancel_draft)
        dialog.finished.connect(self._on_closed)
        self.dialog = dialog
        dialog.open()

    def _on_closed(self, _result: int) -> None:
        self._drop_draft()  # Discard / Esc: a draft still replaying is stopped; nothing was saved
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None
        self._waiting_run = False

    # -- the draft: replayed, never saved ---------------------------------------------------
    def try_draft(self, trigger: str, directive: str) -> None:
        rule, dialog = self._rule, self.dialog
        if rule is None or dialog is None:
            return
        if self._replay.running:
            dialog.show_failure("A replay is already running; wait for it or cancel it first.")
            return
        handle = self._replay.start_draft(rule.rule_id, trigger, directive, self._before_result)
        if handle is None:
            dialog.show_failure("The draft could not be replayed now.")
            return
        self.draft_handle = handle
        dialog.set_running("Replaying the draft (nothing is saved)…", cancellable=True)
        handle.progress.connect(lambda done, total, unit: self._draft_progress(handle, done, total, unit))
        handle.result.connect(lambda summary: self._show_draft(handle, summary))
        handle.error.connect(lambda failure: self._draft_failed(handle, failure))
        handle.cancelled.connect(lambda: self._draft_failed(handle, None))
        handle.finished.connect(lambda: self._draft_finished(handle))

    def cancel_draft(self) -> None:
        if self.draft_handle is not None:
            self.draft_handle.cancel()

    def _drop_draft(self) -> None:
        """Stop a draft still replaying and ignore what it sends from now on (Apply, Discard)."""
        handle, self.draft_handle = self.draft_handle, None
        if handle is not None:
            handle.cancel()

    def _draft_progress(self, handle: JobHandle, done: int, total: int, unit: str) -> None:
        if handle is self.draft_handle and self.dialog is not None:
            self.dialog.show_progress(f"Replaying the draft (nothing is saved): {done:,} / {total:,} {unit or 'pairs'}")

    def _show_draft(self, handle: JobHandle, summary: DraftSummary) -> None:
        if handle is not self.draft_handle or self.dialog is None:
            return
        self.dialog.show_moves(draft_text(summary), summary.moves)
        self.draft_shown.emit(summary)

    def _draft_failed(self, handle: JobHandle, failure: JobFailure | None) -> None:
        if handle is not self.draft_handle or self.dialog is None:
            return
        if failure is None:
            self.dialog.show_failure("Draft cancelled; nothing was saved.")
        else:
            self.dialog.show_failure(f"The draft could not be replayed: {failure}")

    def _draft_finished(self, handle: JobHandle) -> None:
        if handle is self.draft_handle:
            self.draft_handle = None

    # -- apply: a new version, replayed --------------------------------------------------------
    def apply(self, trigger: str, directive: str, expected: int | None = None) -> None:
        rule = self._rule
        services = self.db.services()
        if rule is None or self.dialog is None or services is None:
            return
        self._drop_draft()  # Apply replays the saved text itself; a draft's late answer must not show
        if self._replay.running:
            self.dialog.show_failure("A replay is already running; wait for it or cancel it first.")
            return
        reviewer = self._identity.require(self._parent)
        if not reviewer:
            return
        dialog = self.dialog
        dialog.set_running("Saving…")
        book = versions_for(services.store)
        seen = expected if expected is not None else book.expected("rule", rule.rule_id, rule.row_version)

        def failed(error: BaseException) -> None:
            if isinstance(error, ConcurrentChangeError):
                self._conflict(error, trigger, directive)
            else:
                dialog.show_failure(str(error)[:1].upper() + str(error)[1:])

        self.db.op(lambda s: save_whatif_edit(s.store, rule.rule_id, trigger, directive, reviewer,
                                              expected_version=seen),
                   self._saved, kinds={"rules"}, name="what-if edit", on_error=failed)

    def _conflict(self, error: ConcurrentChangeError, trigger: str, directive: str) -> None:
        """Someone decided on or edited the rule since it was shown: the reviewer chooses."""
        dialog = self.dialog
        if dialog is None:
            return
        dialog.show_failure(f"Not saved: {error.by or 'another writer'} changed the rule first.")

        def keep_mine(found: int) -> None:
            self.conflict_dialog = None
            self.apply(trigger, directive, expected=found)

        def take_theirs() -> None:
            self.conflict_dialog = None
            dialog.reject()  # drop the edit; the window already shows the other reviewer's change

        def cancel() -> None:
            self.conflict_dialog = None  # the edit stays in the dialog, unsaved

        self.conflict_dialog = ask_conflict(self._parent, error, f"edit: when {trigger} / do {directive}",
                                            keep_mine=keep_mine, take_theirs=take_theirs, cancel=cancel)

    def _saved(self, edit: WhatIfEdit) -> None:
        services = self.db.services()
        if services is not None:  # the reviewer's next decision or edit names the version this edit left
            versions_for(services.store).note("rule", edit.rule_id, edit.row_version)
        if self.dialog is None:
            return
        handle = self._replay.start(edit.label, [edit.rule_id])
        if handle is None:
            self.dialog.show_failure("Replay could not start.")
            return
        self._waiting_run = True
        self.dialog.set_running(f"Saved; replaying {edit.label}…")

    def _on_replay_finished(self, done: ReplayDone) -> None:
        if not self._waiting_run or self.dialog is None or self._rule is None:
            return
        self._waiting_run = False
        if done.status != "complete":
            self.dialog.show_failure(f"Replay run #{done.run_id} was {done.status}; nothing to compare.")
            return
        rule_id, before_id = self._rule.rule_id, self._before_result

        def compare(s: StoreServices) -> tuple[Any, Any, Any]:
            after = s.results.rule_row(WorkspaceScope(run_id=done.run_id), rule_id)
            if after is None or before_id is None:
                return None, None, []
            return after, s.results.result(before_id), s.results.bucket_moves(before_id, after.result_id)

        self.db.query(compare, lambda found: self._show_moves(done, *found), name="what-if moves")

    def _show_moves(self, done: ReplayDone, after: Any, before: Any, moves: list[Any]) -> None:
        if self.dialog is None:
            return
        if after is None:
            self.dialog.show_failure("The rule has no result in the new run.")
            return
        verdict_before = f"{VERDICT_TEXT.get(before.verdict, before.verdict)} ({before.reason})" if before else "—"
        summary = (f"v{before.version if before else '?'} → v{after.version} (run #{done.run_id}): verdict "
                   f"{verdict_before} → {VERDICT_TEXT.get(after.verdict, after.verdict)} ({after.reason}); "
                   f"{len(moves)} trajector{'y' if len(moves) == 1 else 'ies'} moved")
        self.dialog.show_moves(summary, moves)
        self._before_result = after.result_id  # the next draft is compared with the version just applied
        self.moves_shown.emit(moves)
