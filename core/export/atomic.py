"""Crash-safe writing of export files and folders.

A reader of an export folder must see the previous complete export or the new complete
one, never a mix, whatever happens meanwhile (a kill, a full disk). So an export is built
in a hidden sibling folder (``.NAME.staging-XXXX``) starting from a copy of what is there,
every file is fsynced, and the finished folder is swapped in with one atomic rename
exchange (Linux ``renameat2(RENAME_EXCHANGE)``; elsewhere two renames, with the old folder
kept as ``.NAME.old-XXXX`` until the new one is in place). Leftovers of an interrupted run
are removed, or an old folder restored, by the next run on the same target.

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
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

Clone = Literal["none", "copy", "link"]
_STAGING = ".staging-"
_OLD = ".old-"


def write_file_atomic(target: Path, content: str | bytes) -> None:
    """Write ``target`` via a temporary sibling, fsynced and renamed into place; on any
    failure the temporary file is removed and ``target`` is as it was. Temporary files left
    by a writer that was killed (its pid is in the name and no longer runs) are removed."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_temporaries(target)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp")
    try:
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
    """Clean up after an interrupted export of ``target``: drop staging folders, and put an
    old folder back if the swap was cut between its two renames."""
    target = Path(target)
    parent = target.parent
    if not parent.is_dir():
        return
    prefix = f".{target.name}"
    olds = sorted(p for p in parent.iterdir() if p.name.startswith(prefix + _OLD))
    for path in parent.iterdir():
        if path.name.startswith(prefix + _STAGING):
            _remove(path)
    if olds and not os.path.lexists(target):
        os.rename(olds[-1], target)
        olds = olds[:-1]
    for path in olds:
        _remove(path)


@contextmanager
def staged_folder(target: Path, clone: Clone = "copy") -> Iterator[Path]:
    """Yield a staging folder to build the new export in; swap it in when the block ends.

    ``clone``: start from a copy of the current folder ("copy"), from hard links to its
    files ("link": cheap, safe when every writer replaces files by rename), or empty.
    If the block raises, the staging folder is removed and ``target`` is untouched.
    """
    target = Path(target).absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    recover(target)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}{_STAGING}"))
    try:
        if target.is_dir() and clone != "none":
            _clone_tree(target, staging, clone)
        yield staging
        _fsync_tree(staging)
        _swap_in(staging, target)
    except BaseException:
        _remove(staging)
        raise


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
