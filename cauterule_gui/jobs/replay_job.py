"""Replay as a job: a CPU-pool job that owns a replay child process for its run.

The job leases a child (``jobs/replay_process.py``), sends it one ``RunReplay`` and reads
the replies with a blocking read in the pool thread. Each reply becomes one signal on the
job's handle, in order: ``Progress`` goes through ``ctx.progress`` (the runner's throttle
is the only one), ``Started`` (the run id, before any progress), ``ChunkSaved`` and
``ModelState`` through ``ctx.post`` (the handle's ``posted`` signal), and ``Finished`` is
the job's result. Cancelling the job terminates the child (see ``ReplayWorker.terminate``).
Why a child at all, rather than replaying in the pool thread: docs/gui.md "Replay job".
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.decisions.whatif_draft import DraftSummary
from core.replay.messages import (
    ChunkSaved,
    DraftReplayed,
    Finished,
    LoadModel,
    ModelState,
    Progress,
    ReplayDraft,
    RunReplay,
    Started,
)

from cauterule_gui.jobs.replay_process import ReplayProcess, ReplayProcessError
from cauterule_gui.jobs.runner import JobContext, JobHandle, JobPool, JobRunner

ReplayDone = Finished  # what a replay job returns: the child's ``Finished`` message itself

__all__ = ["ReplayDone", "ReplayProcess", "ReplayProcessError", "ReplayRequest", "make_replay_job",
           "start_draft", "start_model_load", "start_replay"]


@dataclass(frozen=True)
class ReplayRequest:
    label: str  # what the reviewer asked for, e.g. "selection (3 rules)"
    profile: str
    semantic: bool
    rule_ids: tuple[int, ...] | None = None  # None: every rule
    materialise_expected: bool = False  # turn expected_rule labels into candidates first
    scope: str = field(default="")

    def with_scope(self) -> ReplayRequest:
        return replace(self, scope=f"gui: {self.label} [{uuid.uuid4().hex[:8]}]")

    def message(self, store_path: Path) -> RunReplay:
        return RunReplay(store=str(store_path), profile=self.profile, semantic=self.semantic, rule_ids=self.rule_ids,
                         materialise=self.materialise_expected, scope=self.scope)


def make_replay_job(store_path: Path, request: ReplayRequest,
                    process: ReplayProcess) -> Callable[[JobContext], ReplayDone]:
    def run(ctx: JobContext) -> ReplayDone:
        ctx.raise_if_cancelled()
        message = request.message(store_path)
        with process.lease() as worker, closing(worker.replies(message, ctx.cancel_event)) as replies:
            for reply in replies:
                if isinstance(reply, Finished):
                    return reply
                if isinstance(reply, Progress):
                    ctx.progress(reply.done, reply.total, reply.unit)
                elif isinstance(reply, (Started, ChunkSaved, ModelState)):
                    ctx.post(reply)
                else:
                    raise ReplayProcessError(f"the replay process answered a replay with {type(reply).__name__}")
        raise ReplayProcessError("the replay process sent no result")

    return run


def start_replay(runner: JobRunner, store_path: Path, request: ReplayRequest, process: ReplayProcess) -> JobHandle:
    return runner.submit(make_replay_job(store_path, request, process), name=f"replay {request.label}",
                         pool=JobPool.CPU, key="replay")


def start_draft(runner: JobRunner, store_path: Path, request: ReplayDraft, process: ReplayProcess) -> JobHandle:
    """A what-if draft in a child (the same engine and warm model as a replay; nothing written):
    ``Progress`` through ``ctx.progress``, ``ModelState`` posted, the ``DraftSummary`` the result.
    Cancelling terminates the child (a draft opens no run, so it exits at once)."""
    def run(ctx: JobContext) -> DraftSummary:
        ctx.raise_if_cancelled()
        with process.lease() as worker, closing(worker.replies(request, ctx.cancel_event)) as replies:
            for reply in replies:
                if isinstance(reply, DraftReplayed):
                    try:
                        return DraftSummary.from_json(reply.summary)
                    except ValueError as error:
                        raise ReplayProcessError(str(error)) from None
                if isinstance(reply, Progress):
                    ctx.progress(reply.done, reply.total, reply.unit)
                elif isinstance(reply, ModelState):
                    ctx.post(reply)
                else:
                    raise ReplayProcessError(f"the replay process answered a draft with {type(reply).__name__}")
        raise ReplayProcessError("the replay process sent no draft result")

    return runner.submit(run, name=f"what-if draft of rule {request.rule_id}", pool=JobPool.CPU, key="whatif-draft")


def start_model_load(runner: JobRunner, process: ReplayProcess) -> JobHandle:
    """Load the embedding model in a (kept-warm) child; each ``ModelState`` is posted."""
    def run(ctx: JobContext) -> ModelState | None:
        last: ModelState | None = None
        with process.lease() as worker:
            for reply in worker.replies(LoadModel(), ctx.cancel_event):
                if isinstance(reply, ModelState):
                    ctx.post(reply)
                    last = reply
        return last

    return runner.submit(run, name="load embedding model", pool=JobPool.CPU, key="model")
