"""Crash-safe writing of export files and folders.

A reader of an export folder must see the previous complete export or the new complete
one, never a mix, whatever happens meanwhile (a kill, a full disk). So an export is built
in a hidden sibling folder (``.NAME.staging-XXXX``) starting from a copy of what is there,
every file is fsynced, and the finished folder is swapped in with one atomic rename
exchange (Linux ``renameat2(RENAME_EXCHANGE)``; elsewhere two renames, with the old folder
kept as ``.NAME.old-XXXX`` until the new one is in place). Leftovers of an interrupted run
are removed, or an old folder restored, by the next run on the same target.

Two exports into one target are serialised by an advisory lock (``flock``) on a hidden
sibling file ``.NAME.lock``, held from the check of the target to the swap
(:func:`export_lock`; :func:`staged_folder` takes it itself). Without it two exports could
each swap in a folder built from the other's half-finished state. A staging folder carries
its writer's pid (``.NAME.staging-PID-XXXX``), and only those of dead writers are removed.

Modes follow the umask, as ``cp`` does: new folders ``0o777 & ~umask``, new files
``0o666 & ~umask``; a file or folder that exists keeps its mode (the swapped-in folder gets
the mode of the one it replaces).

Files inside the staging folder must be replaced by rename (:func:`write_file_atomic`),
never rewritten in place: with ``clone="link"`` they share inodes with the live export.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import glob
import os
import shutil
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

Clone = Literal["none", "copy", "link"]
_STAGING = ".staging-"
_OLD = ".old-"
_LOCK = ".lock"
# How long an export waits for another export of the same target before giving up with a
# message; exports of a few thousand rules take seconds, so a minute means something is stuck.
LOCK_WAIT_SECONDS = 60.0
_LOCK_POLL_SECONDS = 0.05


class ExportBusyError(RuntimeError):
    """Another export of the same target held its lock for longer than the wait; nothing changed.

    ``holder`` says who holds it (process, host, user, since when), as that export wrote it
    into the lock file; "another export" when it could not be read."""

    def __init__(self, target: Path, holder: str, waited: float) -> None:
        self.target = target
        self.holder = holder
        self.waited = waited
        super().__init__(f"{target} is being written by another export ({holder}) and its lock was held for more "
                         f"than {waited:.0f} s; nothing was changed — try again when that export has finished")


def current_umask() -> int:
    """The process umask, read without changing it where possible (``os.umask`` can only be
    read by setting it, which races with other threads creating files)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    return 0o666 & ~current_umask()


def new_folder_mode() -> int:
    return 0o777 & ~current_umask()


_held = threading.local()  # targets whose lock this thread holds (nested export_lock calls)


@contextmanager
def export_lock(target: Path, wait_seconds: float | None = None) -> Iterator[None]:
    """Hold the export lock of ``target`` (``.NAME.lock`` beside it) for the block.

    Waits up to ``wait_seconds`` (default :data:`LOCK_WAIT_SECONDS`) for another export of
    the same target, then raises :class:`ExportBusyError`. Re-entrant within one thread, so
    an exporter may take it around its own checks and still call :func:`staged_folder`.
    The lock file is removed on release, so a finished export leaves nothing beside its folder.
    """
    target = Path(target).absolute()
    held: set[Path] = _held.__dict__.setdefault("targets", set())
    if target in held:
        yield
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_path = target.parent / f".{target.name}{_LOCK}"
    fd = _acquire(lock_path, target, LOCK_WAIT_SECONDS if wait_seconds is None else wait_seconds)
    held.add(target)
    try:
        yield
    finally:
        held.discard(target)
        with contextlib.suppress(OSError):
            os.unlink(lock_path)  # while still locked: a waiter then finds its file gone and retries
        os.close(fd)  # closing the descriptor releases the flock


def _acquire(lock_path: Path, target: Path, wait_seconds: float) -> int:
    """Open and flock ``lock_path``; return the descriptor. A lock file unlinked by the
    previous holder between our open and our flock is not the lock any more: open again."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows has no flock; exports there are not serialised
        return os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
    deadline = time.monotonic() + wait_seconds
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)  # the umask applies, as for any new file
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                raise ExportBusyError(target, _lock_holder(lock_path), wait_seconds) from None
            time.sleep(_LOCK_POLL_SECONDS)
            continue
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, lock_path):
            _write_holder(fd)
            return fd
        os.close(fd)


def _write_holder(fd: int) -> None:
    """Say in the lock file who holds it, so a waiter that gives up can name the holder (a
    flock itself does not say). Best effort: the lock is what serialises, not this line."""
    import getpass
    import socket

    user = "unknown user"
    with contextlib.suppress(Exception):  # getuser raises when no name is known for the uid
        user = getpass.getuser()
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
    line = f"process {os.getpid()} of {user} on {socket.gethostname()}, since {since}\n"
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, line.encode("utf-8"), 0)


def _lock_holder(lock_path: Path) -> str:
    """The holder line of a lock file, shown as plain one-line text; "another export" if unreadable."""
    from core.plain import show_bidi

    with contextlib.suppress(OSError, UnicodeDecodeError):
        text = " ".join(lock_path.read_text(encoding="utf-8").split())[:200]
        if text:
            return show_bidi(text)
    return "another export"


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def write_file_atomic(target: Path, content: str | bytes) -> None:
    """Write ``target`` via a temporary sibling, fsynced and renamed into place; on any
    failure the temporary file is removed and ``target`` is as it was. Temporary files left
    by a writer that was killed (its pid is in the name and no longer runs) are removed."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_temporaries(target)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp")
    try:
        # mkstemp makes 0600 files; the export gets the existing file's mode, else the umask's.
        os.fchmod(fd, _existing_mode(target, new_file_mode()))
        with os.fdopen(fd, "wb") as handle:
            handle.write(content.encode("utf-8") if isinstance(content, str) else content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
        fsync_dir(target.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise


def _remove_dead_temporaries(target: Path) -> None:
    prefix = f".{target.name}."
    for path in target.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid = path.name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            with contextlib.suppress(OSError):
                path.unlink()


def _existing_mode(path: Path, default: int) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return default


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform/filesystem can fsync a folder
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def recover(target: Path) -> None:
    """Clean up after an interrupted export of ``target``: drop the staging folders of
    writers that are gone, and put an old folder back if the swap was cut between its two
    renames. Takes the target's export lock (another export may be running)."""
    target = Path(target).absolute()
    parent = target.parent
    if not parent.is_dir():
        return
    with export_lock(target):
        _recover_locked(target)


def _recover_locked(target: Path) -> None:
    parent = target.parent
    prefix = f".{target.name}"
    olds = sorted(p for p in parent.iterdir() if p.name.startswith(prefix + _OLD))
    for path in parent.iterdir():
        if path.name.startswith(prefix + _STAGING) and not _staging_owner_running(path.name[len(prefix + _STAGING):]):
            _remove(path)
    if olds and not os.path.lexists(target):
        os.rename(olds[-1], target)
        olds = olds[:-1]
    for path in olds:
        _remove(path)


def _staging_owner_running(suffix: str) -> bool:
    """``suffix`` is ``PID-XXXX`` (a name without a pid is from an older version: its writer
    is gone, since the lock is held)."""
    pid = suffix.split("-", 1)[0]
    return pid.isdigit() and int(pid) != os.getpid() and _running(int(pid))


@contextmanager
def staged_folder(target: Path, clone: Clone = "copy") -> Iterator[Path]:
    """Yield a staging folder to build the new export in; swap it in when the block ends.

    ``clone``: start from a copy of the current folder ("copy"), from hard links to its
    files ("link": cheap, safe when every writer replaces files by rename), or empty.
    If the block raises, the staging folder is removed and ``target`` is untouched.
    The target's export lock is held throughout (see :func:`export_lock`).
    """
    target = Path(target).absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    with export_lock(target):
        _recover_locked(target)
        staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}{_STAGING}{os.getpid()}-"))
        try:
            live: set[tuple[int, int]] = set()
            if target.is_dir() and clone != "none":
                _clone_tree(target, staging, clone)
                live = _inodes(target)
            yield staging
            _apply_modes(staging, target, live)
            _fsync_tree(staging)
            _swap_in(staging, target)
        except BaseException:
            _remove(staging)
            raise


def _inodes(root: Path) -> set[tuple[int, int]]:
    found = set()
    for folder, _dirnames, filenames in os.walk(root):
        for name in filenames:
            with contextlib.suppress(OSError):
                info = os.lstat(Path(folder) / name)
                found.add((info.st_dev, info.st_ino))
    return found


def _apply_modes(staging: Path, target: Path, live: set[tuple[int, int]]) -> None:
    """Give the staged folders and new files the modes ``cp`` would: an existing file or
    folder's own mode, else the umask's. mkdtemp and mkstemp make 0700 / 0600; a file that
    is still a hard link to the live export is left alone (its mode is the live file's)."""
    file_mode, folder_mode = new_file_mode(), new_folder_mode()
    for folder, _dirnames, filenames in os.walk(staging):
        rel = Path(folder).relative_to(staging)
        os.chmod(folder, _existing_mode(target / rel, folder_mode))
        for name in filenames:
            path = Path(folder) / name
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) in live:
                continue
            os.chmod(path, _existing_mode(target / rel / name, file_mode))


def _clone_tree(source: Path, dest: Path, clone: Clone) -> None:
    for folder, dirnames, filenames in os.walk(source):
        rel = Path(folder).relative_to(source)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        for name in dirnames:
            src = Path(folder) / name
            if src.is_symlink():
                os.symlink(os.readlink(src), dest / rel / name)
        for name in filenames:
            src, dst = Path(folder) / name, dest / rel / name
            if src.is_symlink():
                os.symlink(os.readlink(src), dst)
            elif clone == "link":
                try:
                    os.link(src, dst)
                except OSError:
                    shutil.copy2(src, dst)
            else:
                shutil.copy2(src, dst)


def _fsync_tree(root: Path) -> None:
    for folder, _dirnames, filenames in os.walk(root):
        for name in filenames:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(Path(folder))


def _swap_in(staging: Path, target: Path) -> None:
    if not os.path.lexists(target):
        os.rename(staging, target)
    elif not _exchange(staging, target):
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}{_OLD}"))
        os.rmdir(old)
        os.rename(target, old)  # a kill right here is undone by recover(): old goes back
        os.rename(staging, target)
        _remove(old)
        fsync_dir(target.parent)
        return
    else:
        _remove(staging)  # after the exchange it holds the previous export
    fsync_dir(target.parent)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()
