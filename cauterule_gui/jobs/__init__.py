"""Background jobs: QThreadPool runnables that emit signals and never touch widgets."""

from cauterule_gui.jobs.runner import JobCancelled, JobContext, JobFailure, JobHandle, JobPool, JobRunner

__all__ = ["JobCancelled", "JobContext", "JobFailure", "JobHandle", "JobPool", "JobRunner"]
