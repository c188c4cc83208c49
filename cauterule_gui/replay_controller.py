"""Runs replay from the window and keeps the workspace in step with it.

One replay at a time (a second request while one runs is refused with a message; Cancel
stops the running one between chunks, or between model batches while it embeds). Progress
names its phase with a count and an ETA for that phase ("embedding 1,200 / 5,000 texts" on a
cold semantic run, then "scoring … pairs"). While it runs, the rules table shows each chunk's
results as soon as they are saved (the run is added to the table's "live" runs), the run
history gains the new run, and the status bar shows the model state.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from core.embeddings import DEFAULT_EMBEDDER, EMBEDDER_SETTING_ENV, EMBEDDERS
from core.replay.messages import ChunkSaved, ModelState, ReplayDraft, Started
from core.replay.profiles import PROFILES, profile_by_name

from cauterule_gui.jobs import JobFailure, JobHandle, JobRunner
from cauterule_gui.jobs.replay_job import (
    ReplayDone,
    ReplayProcess,
    ReplayProcessError,
    ReplayRequest,
    start_draft,
    start_model_load,
    start_replay,
)
from cauterule_gui.jobs.replay_process import share
from cauterule_gui.panels.import_dialogs import JobProgressWidget, eta_text
from cauterule_gui.services import StoreServices

KEY_PROFILE = "replay/profile"
ADOPTED = "adopted"  # the profile setting meaning: whatever the store has adopted (core.store.profile_repo)
KEY_SEMANTIC = "replay/semantic"
KEY_EMBEDDER = "replay/embedder"  # torch | onnx | onnx-int8; unset: CAUTERULE_WORKBENCH_EMBEDDER, else torch


class ReplayController(QObject):
    replay_started = Signal(object)  # ReplayRequest
    results_arrived = Signal(int)  # live run id
    replay_finished = Signal(object)  # ReplayDone (complete or cancelled)
    replay_done = Signal()  # after any outcome
    status_message = Signal(str)
    model_state_changed = Signal(str)

    def __init__(self, runner: JobRunner, services: Callable[[], StoreServices | None], settings: QSettings,
                 process: ReplayProcess, progress: JobProgressWidget, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self._runner = runner
        self._services = services
        self._settings = settings
        self.process = process
        share(process)  # panels' embeddings use the same warm child (and its preloaded model)
        self._model_loaded = False
        self._progress = progress
        self._parent = dialog_parent
        self.handle: JobHandle | None = None
        self.request: ReplayRequest | None = None
        self.live_run_id: int | None = None
        self.live_profile: str | None = None
        self.last_done: ReplayDone | None = None
        self.progress_text = ""  # what the progress widget says: phase, count, ETA
        self._phase: tuple[str, float] = ("", 0.0)  # unit of the current phase, when it began
        self.model_state = "embedding model: not loaded (loads for the first semantic replay)"
        process.set_embedder(self.embedder_choice)

    # -- profile -----------------------------------------------------------------------
    @property
    def profile_name(self) -> str:
        """``adopted`` (the store's adopted profile, read by the replay process; the default: it is
        ``lab-2026-12`` until a team adopts another), or a built-in chosen in the Review menu."""
        value = self._settings.value(KEY_PROFILE, ADOPTED)
        return value if isinstance(value, str) and value in (ADOPTED, *PROFILES) else ADOPTED

    def set_profile_name(self, name: str) -> None:
        self._settings.setValue(KEY_PROFILE, name)

    @property
    def semantic(self) -> bool:
        value = self._settings.value(KEY_SEMANTIC, True)
        return value.lower() in ("true", "1") if isinstance(value, str) else bool(value)

    def set_semantic(self, on: bool) -> None:
        self._settings.setValue(KEY_SEMANTIC, on)

    def semantic_effective(self) -> bool:
        if self.profile_name == ADOPTED:  # the replay process ANDs this with the adopted profile's own flag
            return self.semantic
        return profile_by_name(self.profile_name).semantic and self.semantic

    # -- embedder ----------------------------------------------------------------------
    @property
    def embedder_choice(self) -> str | None:
        """The runtime chosen in Replay ▸ Embedding runtime; None until one is chosen."""
        value = self._settings.value(KEY_EMBEDDER)
        return value if isinstance(value, str) and value in EMBEDDERS else None

    @property
    def embedder(self) -> str:
        """The runtime the replay children use: the choice, else the environment's, else torch."""
        chosen = self.embedder_choice or os.environ.get(EMBEDDER_SETTING_ENV, "").strip().lower()
        return chosen if chosen in EMBEDDERS else DEFAULT_EMBEDDER

    def set_embedder(self, kind: str) -> None:
        """Use ``kind`` from the next replay on (a running one finishes with its own); the model
        is loaded again in the background, as at start-up."""
        if kind not in EMBEDDERS:
            raise ValueError(f"unknown embedder {kind!r}: expected one of {', '.join(EMBEDDERS)}")
        changed = kind != self.embedder
        self._settings.setValue(KEY_EMBEDDER, kind)
        self.process.set_embedder(kind)
        if not changed:
            return
        when = "from the next replay (the running one keeps its own)" if self.running else "from the next replay"
        self.status_message.emit(f"Embedding runtime: {kind}, {when}")
        self._set_model_state(f"embedding model: not loaded ({kind}; loads for the next semantic replay)")
        if self._model_loaded:
            self._model_loaded = False
            if not self.running:  # a second model beside a running replay's would double the memory
                self.load_model()

    # -- running -----------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.handle is not None and self.handle.running

    def _idle_services(self) -> StoreServices | None:
        """The open store's services when no replay runs; None (with a status message) otherwise."""
        services = self._services()
        if services is not None and self.running:
            self.status_message.emit("A replay is already running; cancel it or wait for it to finish")
            return None
        return services

    def start(self, label: str, rule_ids: list[int] | None, *, materialise_expected: bool = False) -> JobHandle | None:
        services = self._idle_services()
        if services is None:
            return None
        if rule_ids is not None and not rule_ids:
            self.status_message.emit("No rules to replay")
            return None
        request = ReplayRequest(label=label, profile=self.profile_name, semantic=self.semantic_effective(),
                                rule_ids=None if rule_ids is None else tuple(rule_ids),
                                materialise_expected=materialise_expected).with_scope()
        self.request, self.live_run_id, self.live_profile = request, None, None
        handle = start_replay(self._runner, services.path, request, self.process)
        self.handle = handle
        self._progress.track(handle, f"Replaying {label}", unit=lambda message: message or "pairs")
        self._phase = ("", 0.0)
        self.progress_text = f"Replaying {label}: starting…"
        # Connected after track(): this slot runs after the widget's and corrects its ETA,
        # which would otherwise count the embedding time against the scoring phase.
        handle.progress.connect(self._on_job_progress)
        handle.posted.connect(self._on_posted)
        handle.result.connect(self._on_result)
        handle.error.connect(self._on_error)
        handle.cancelled.connect(self._on_cancelled)
        handle.finished.connect(self._on_finished)
        shown = "the store's adopted profile" if request.profile == ADOPTED else f"profile {request.profile}"
        self.status_message.emit(f"Replaying {label} ({shown}, "
                                 f"semantic {'on' if request.semantic else 'off'})…")
        self.replay_started.emit(request)
        return handle

    def start_draft(self, rule_id: int, trigger: str, directive: str, before_result: int | None) -> JobHandle | None:
        """Replay a what-if draft (unsaved text) in a replay child with this window's profile and
        semantic setting, as ``start`` would replay the saved rule; the store is not written.
        The handle's result is a ``DraftSummary``. None (with a status message) while a replay runs."""
        services = self._idle_services()
        if services is None:
            return None
        request = ReplayDraft(store=str(services.path), profile=self.profile_name, semantic=self.semantic_effective(),
                              rule_id=rule_id, trigger=trigger, directive=directive, before_result=before_result)
        handle = start_draft(self._runner, services.path, request, self.process)
        handle.posted.connect(self._on_posted)  # the model state, as for a replay
        return handle

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()

    def load_model(self) -> JobHandle | None:
        """Start loading the embedding model in the background (start-up)."""
        services = self._services()
        if services is None or self._model_loaded:
            return None
        self._model_loaded = True
        handle = start_model_load(self._runner, self.process)
        handle.posted.connect(self._on_posted)
        handle.error.connect(lambda failure: self._on_model_unavailable(str(failure)))
        return handle

    def shutdown(self) -> None:
        """Stop the replay process (after the runner has cancelled and finished the jobs)."""
        self.process.stop()

    # -- job signals (GUI thread) ------------------------------------------------------
    def _on_job_progress(self, done: int, total: int, unit: str) -> None:
        if self.handle is None or self.handle.cancel_event.is_set():
            return  # keep "Cancelling…"
        now = time.monotonic()
        if unit != self._phase[0]:
            self._phase = (unit, now)
        eta = eta_text(now - self._phase[1], done, total)
        verb = "embedding" if unit == "texts" else "scoring"
        label = self.request.label if self.request is not None else "rules"
        self.progress_text = f"Replaying {label}: {verb} {done:,} / {total:,} {unit or 'pairs'}, {eta}"
        self._progress.label.set_full_text(self.progress_text)
        self._progress.eta_label.set_full_text(eta)

    def _on_posted(self, message: object) -> None:
        """The replay child's messages, in the order it sent them."""
        if isinstance(message, Started):
            self.live_run_id = message.run_id  # sent before any progress of the run
            self.live_profile = message.profile  # the label the run records (name@version when stored)
        elif isinstance(message, ChunkSaved):
            self.live_run_id = message.run_id
            self.results_arrived.emit(message.run_id)
        elif isinstance(message, ModelState):
            if message.state == "loading":
                self._on_model_loading()
            elif message.state == "ready":
                self._on_model_ready(message.info or "")
            else:
                self._on_model_unavailable(message.info or "unknown reason")

    def _on_result(self, done: ReplayDone) -> None:
        self.last_done = done
        if done.status == "complete":
            semantic = done.semantic_state + (f" ({done.semantic_note})" if done.semantic_note else "")
            self.status_message.emit(
                f"Replay run #{done.run_id} complete (profile {self.live_profile or '?'}): {done.rules} rules, "
                f"{done.pairs:,} pairs in "
                f"{done.seconds:.1f} s, semantic {semantic}"
            )
        else:
            self.status_message.emit(f"Replay run #{done.run_id} cancelled; results saved before the cancel are kept "
                                     "but the run is not used for review")
        self.replay_finished.emit(done)

    def _on_error(self, failure: JobFailure) -> None:
        self.status_message.emit(f"Replay failed: {failure}")
        box = QMessageBox(QMessageBox.Icon.Critical, "Replay failed", f"The replay stopped:\n\n{failure}",
                          QMessageBox.StandardButton.Close, self._parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        remote = failure.exception.remote_traceback if isinstance(failure.exception, ReplayProcessError) else ""
        box.setDetailedText(remote or failure.traceback)
        box.open()

    def _on_cancelled(self) -> None:
        self.status_message.emit("Replay cancelled")

    def _on_finished(self) -> None:
        self.handle = None
        self.live_run_id = None
        self.replay_done.emit()

    # -- model state -------------------------------------------------------------------
    def _set_model_state(self, text: str) -> None:
        self.model_state = text
        self.model_state_changed.emit(text)

    def _on_model_loading(self) -> None:
        self._set_model_state("embedding model: loading model…")

    def _on_model_ready(self, model_id: str) -> None:
        self._set_model_state(f"semantic matching ready ({model_id})")

    def _on_model_unavailable(self, why: str) -> None:
        self._set_model_state(f"semantic matching unavailable: {why}")
