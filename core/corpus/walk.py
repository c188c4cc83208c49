"""Finding the files under an import root and naming the corpus each belongs to.

A corpus is a folder: its name is the folder's path relative to the import root, so importing
``/x/cauterule`` names a record's corpus ``field-test/corpus/curated/nearmiss``. That keeps
same-named folders in different trees (``corpus/public/nearmiss`` vs the curated one) apart,
which matters because ids repeat across them (reference doc §1.7).
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

FileKind = Literal["trajectories", "rule_yaml", "other"]

_KIND_BY_SUFFIX: dict[str, FileKind] = {".jsonl": "trajectories", ".yaml": "rule_yaml", ".yml": "rule_yaml"}


@dataclass(frozen=True)
class CorpusFile:
    """One file found by :func:`walk_import_root`.

    ``rel_path`` is posix and relative to the import root when a folder was given, or just
    the file name when a single file was given (its base is then the parent folder).
    """

    abs_path: Path
    rel_path: str
    corpus_name: str
    kind: FileKind


def file_kind(path: Path | str) -> FileKind:
    """Kind by suffix: ``.jsonl`` trajectories, ``.yaml``/``.yml`` rule YAML, else other."""
    return _KIND_BY_SUFFIX.get(PurePosixPath(str(path)).suffix.lower(), "other")


def walk_import_root(root: Path, skipped: list[str] | None = None) -> list[CorpusFile]:
    """List every file under ``root`` (or ``root`` itself if it is a file), sorted.

    Hidden folders and files (``.git``, ``.quarantine``, editor droppings) are skipped.
    Symlinked folders are not followed, so a link loop cannot hang an import; each one, and
    each link that loops, is described in ``skipped`` (path relative to the root) so that
    the import says what it left out.

    Raises ``FileNotFoundError`` if ``root`` does not exist.
    """
    base = Path(root).absolute()
    # A root that is a file, or a link/FIFO/device given by name, is listed as it is: the
    # importer reads regular files only and reports the others.
    if base.is_file() or (os.path.lexists(base) and not base.is_dir()):
        return [CorpusFile(base, base.name, base.parent.name, file_kind(base))]
    if not base.is_dir():
        raise FileNotFoundError(f"import root not found: {root}")
    root_name = base.name or base.as_posix()
    found: list[CorpusFile] = []
    for folder, dirnames, filenames in os.walk(base):
        # Pruning in place is how os.walk is told not to descend.
        folder_path = Path(folder)
        rel_folder = folder_path.relative_to(base).as_posix()
        links = sorted(d for d in dirnames if not d.startswith(".") and (folder_path / d).is_symlink())
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in links)
        if skipped is not None:
            skipped.extend(_folder_link(folder_path / d, _rel(rel_folder, d)) for d in links)
            skipped.extend(f"{_rel(rel_folder, name)}: a symbolic link loop; skipped" for name in sorted(filenames)
                           if not name.startswith(".") and _is_link_loop(folder_path / name))
        corpus_name = root_name if rel_folder == "." else rel_folder
        for name in filenames:
            if name.startswith("."):
                continue
            path = folder_path / name
            rel = name if rel_folder == "." else f"{rel_folder}/{name}"
            found.append(CorpusFile(path, rel, corpus_name, file_kind(name)))
    found.sort(key=lambda f: f.rel_path.split("/"))
    return found


def _rel(rel_folder: str, name: str) -> str:
    return name if rel_folder == "." else f"{rel_folder}/{name}"


def _folder_link(link: Path, rel: str) -> str:
    """Why a link to a folder was not followed, naming a loop when it is one."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return f"{rel}: a folder link that loops; not followed"
    if link.parent.resolve().is_relative_to(target):
        return f"{rel}: a folder link back to a folder that contains it (a loop); not followed"
    return (f"{rel}: a link to the folder {target}; not followed (links to folders never are, so a loop "
            "cannot hang an import): import that folder itself to include it")


def _is_link_loop(path: Path) -> bool:
    if not path.is_symlink():
        return False
    try:
        os.stat(path)
    except OSError as error:
        return error.errno == errno.ELOOP
    return False
