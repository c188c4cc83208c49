"""What the window needs from one open store: the store and its repositories."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QLockFile

from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, StoreLockedError, open_store
from core.store.migrations import StoreTooNewError
from core.store.replay_repo import ReplayRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository
from core.store.workspace_repo import WorkspaceRepository

STORE_ERRORS = (StoreTooNewError, StoreLockedError)


@dataclass
class StoreServices:
    store: Store
    corpora: CorpusRepository
    rules: RuleRepository
    replays: ReplayRepository
    reviews: ReviewRepository
    workspace: WorkspaceRepository
    instance_lock: QLockFile | None = field(default=None, repr=False)

    @property
    def path(self) -> Path:
        return self.store.path

    def close(self) -> None:
        self.store.close()
        if self.instance_lock is not None:
            self.instance_lock.unlock()
            self.instance_lock = None


def _instance_lock(path: Path) -> QLockFile:
    """One Workbench window per store: SQLite would let two write, but two reviewers' windows
    on one file would show each other stale tables. A lock left by a crashed process is stale
    (its process is gone) and is taken over."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = QLockFile(str(path) + ".lock")
    lock.setStaleLockTime(0)  # only a dead owner makes it stale, never its age
    if not lock.tryLock(200):
        owner = lock.getLockInfo()
        who = f" (process {owner[1]} on {owner[2]})" if owner and owner[0] else ""
        raise StoreLockedError(f"{path} is open in another Workbench{who}")
    return lock


def open_services(path: Path) -> StoreServices:
    """Open (creating if needed) a store; raises StoreTooNewError / StoreLockedError / OSError.

    The instance lock is taken first and the store is not touched when it cannot be had.
    """
    lock = _instance_lock(path)
    try:
        store = open_store(path)
    except BaseException:
        lock.unlock()
        raise
    return StoreServices(
        store=store, corpora=CorpusRepository(store), rules=RuleRepository(store), replays=ReplayRepository(store),
        reviews=ReviewRepository(store), workspace=WorkspaceRepository(store), instance_lock=lock,
    )


def describe_store_error(error: BaseException, path: Path) -> tuple[str, str]:
    """A title and a message a reviewer can act on."""
    if isinstance(error, StoreTooNewError):
        return (
            "Store is newer than this Workbench",
            f"The store\n{path}\nwas written by a newer version of CauterRule Workbench.\n\n"
            "It was not opened and nothing in it was changed. Update the Workbench, or open "
            "or create a different store.",
        )
    if isinstance(error, StoreLockedError):
        return (
            "Store is in use",
            f"The store\n{path}\nis locked by another program (perhaps another Workbench window "
            "or an import on the command line).\n\nClose the other program and try again.",
        )
    return ("Could not open store", f"The store\n{path}\ncould not be opened:\n\n{error}")
