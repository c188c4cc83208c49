"""Finding the files under an import root and naming the corpus each belongs to.

A corpus is a folder: its name is the folder's path relative to the import root, so importing
``/x/cauterule`` names a record's corpus ``field-test/corpus/curated/nearmiss``. That keeps
same-named folders in different trees (``corpus/public/nearmiss`` vs the curated one) apart,
which matters because ids repeat across them (reference doc §1.7).
"""

from __future__ import annotations

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


def walk_import_root(root: Path) -> list[CorpusFile]:
    """List every file under ``root`` (or ``root`` itself if it is a file), sorted.

    Hidden folders and files (``.git``, ``.quarantine``, editor droppings) are skipped.
    Symlinked folders are not followed, so a link loop cannot hang an import.

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
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        folder_path = Path(folder)
        rel_folder = folder_path.relative_to(base).as_posix()
        corpus_name = root_name if rel_folder == "." else rel_folder
        for name in filenames:
            if name.startswith("."):
                continue
            path = folder_path / name
            rel = name if rel_folder == "." else f"{rel_folder}/{name}"
            found.append(CorpusFile(path, rel, corpus_name, file_kind(name)))
    found.sort(key=lambda f: f.rel_path.split("/"))
    return found
