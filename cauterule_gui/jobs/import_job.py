"""Corpus import as a job: ``core.importing.import_paths`` wrapped for the runner."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from core.store.dto import ImportSummary
from core.store.engine import Store

from cauterule_gui.jobs.runner import JobCancelled, JobContext, JobHandle, JobPool, JobRunner


def make_import_job(store: Store, paths: Sequence[Path]) -> Callable[[JobContext], ImportSummary]:
    roots = [Path(p) for p in paths]

    def run(ctx: JobContext) -> ImportSummary:
        # Imported here, not at module level: the window must open even if the importer
        # (or one of its readers) cannot be loaded; the failure then reaches the GUI as a job error.
        from core.importing import ImportCancelled, import_paths

        try:
            return import_paths(store, roots, progress=ctx.progress, cancel=ctx.cancel_event)
        except ImportCancelled as exc:
            raise JobCancelled(str(exc)) from exc

    return run


def start_import(runner: JobRunner, store: Store, paths: Sequence[Path]) -> JobHandle:
    """Import on the single-thread write pool, so two imports queue instead of interleaving."""
    names = ", ".join(Path(p).name for p in paths)
    return runner.submit(make_import_job(store, paths), name=f"import {names}", pool=JobPool.DB)
