"""Write a corpus's records back out as JSONL, file by file, objects exactly as imported.

The files are written into a staging copy of the output folder that is swapped in whole
(``core.export.atomic``): a reader sees the previous export or this one, never a mix.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from core.corpus.writer import write_jsonl
from core.export.atomic import staged_folder
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store


class UnknownCorpusError(LookupError):
    pass


def export_corpus(store: Store, corpus: str, out_dir: Path) -> list[Path]:
    """Export every record of ``corpus`` under ``out_dir``, keeping each file's relative path."""
    repo = CorpusRepository(store)
    if corpus not in {c.name for c in repo.list_corpora()}:
        raise UnknownCorpusError(f"no corpus named {corpus!r} in {store.path}")
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for file, record in repo.corpus_records(corpus):
        by_file[file].append(record)
    written: list[Path] = []
    # Files outside this corpus stay: the staging folder starts as hard links to them
    # (write_jsonl replaces by rename, so the live files are never written in place).
    with staged_folder(out_dir, clone="link") as staging:
        for file, records in sorted(by_file.items()):
            target = staging / file
            # A relative path from the store must never escape the chosen folder.
            if not target.resolve().is_relative_to(staging.resolve()):
                raise ValueError(f"refusing to write outside {out_dir}: {file}")
            write_jsonl(records, target)
            written.append(out_dir / file)
    return written
