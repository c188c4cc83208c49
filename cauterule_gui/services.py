"""What the window needs from one open store: the store and its repositories."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QLockFile

from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store, StoreLockedError, open_store
from core.store.migrations import StoreTooNewError
from core.store.postgres import is_postgres_url
from core.store.replay_repo import ReplayRepository
from core.store.result_repo import ResultRepository
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository
from core.store.store_file import (
    NotAStoreError,
    StoreCorruptError,
    StoreOpenError,
    StoreReadOnlyError,
    inspect_store_file,
)

STORE_ERRORS = (StoreTooNewError, StoreOpenError)


@dataclass
class StoreServices:
    store: Store
    corpora: CorpusRepository
    rules: RuleRepository
    replays: ReplayRepository
    reviews: ReviewRepository
    results: ResultRepository
    instance_lock: QLockFile | None = field(default=None, repr=False)
    # On a team store, the server login: the reviewer's name there (roles and row-level security
    # compare rows with it), read once when the store opens. None for a SQLite file.
    login: str | None = None

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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreReadOnlyError(f"{path.parent} cannot be created: {error.strerror or error}") from error
    lock = QLockFile(str(path) + ".lock")
    lock.setStaleLockTime(0)  # only a dead owner makes it stale, never its age
    if not lock.tryLock(200):
        # Only LockFailedError means another process holds it; a lock file that cannot be
        # created (read-only folder or mount) is not contention and must not be reported so.
        if lock.error() == QLockFile.LockError.PermissionError:
            raise StoreReadOnlyError(f"{path.parent} is read-only: the Workbench cannot write next to {path.name}")
        if lock.error() != QLockFile.LockError.LockFailedError:
            raise StoreOpenError(f"{path} cannot be locked for this window (lock file {path}.lock)")
        raise StoreLockedError(f"{path} is open in another Workbench{_lock_owner(lock)}")
    return lock


def _lock_owner(lock: QLockFile) -> str:
    """' (process PID on HOST, APP)' from getLockInfo(), which PySide6 returns as
    (pid, hostname, appname), or as (ok, pid, hostname, appname) in some versions."""
    info = tuple(lock.getLockInfo() or ())
    if len(info) == 4:
        if not info[0]:
            return ""
        info = info[1:]
    if len(info) != 3 or not info[0]:
        return ""
    pid, host, app = info
    return f" (process {pid} on {host}{', ' + str(app) if app else ''})"


def open_services(path: Path) -> StoreServices:
    """Open (creating if needed) a store; raises StoreTooNewError / StoreLockedError / OSError.

    The file is checked read-only first (a folder, another application's database, a damaged
    or read-only file is refused before a lock file is written next to it); then the instance
    lock is taken, and the store is not touched when it cannot be had.
    """
    if is_postgres_url(path):  # a team store on a server: no file to inspect or lock
        store = open_store(path)
        return StoreServices(store=store, corpora=CorpusRepository(store), rules=RuleRepository(store),
                             replays=ReplayRepository(store), reviews=ReviewRepository(store),
                             results=ResultRepository(store), login=store.login())
    inspect_store_file(path)
    lock = _instance_lock(path)
    try:
        store = open_store(path)
    except BaseException:
        lock.unlock()
        raise
    return StoreServices(
        store=store, corpora=CorpusRepository(store), rules=RuleRepository(store), replays=ReplayRepository(store),
        reviews=ReviewRepository(store), results=ResultRepository(store), instance_lock=lock,
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
            f"or an import on the command line).\n\n{error}\n\nClose the other program and try again.",
        )
    if isinstance(error, StoreReadOnlyError):
        return (
            "Store is read-only",
            f"The store\n{path}\ncannot be written: {error}\n\nIt was not changed. Copy it to a "
            "writable folder, or open or create a different store.",
        )
    if isinstance(error, NotAStoreError):
        return (
            "Not a Workbench store",
            f"{error}\n\nThe file was not changed. Choose a Workbench store, or create a new one.",
        )
    if isinstance(error, StoreCorruptError):
        return (
            "Store is damaged",
            f"{error}\n\nThe file was not changed. Restore it from a backup, or open or create "
            "a different store.",
        )
    return ("Could not open store", f"The store\n{path}\ncould not be opened:\n\n{error}")
