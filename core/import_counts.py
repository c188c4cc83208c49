"""What an import counts per corpus, shared by its trajectory pass (``core.importing``) and its
rule-file pass (``core.import_rules``): the corpus's role as stored and how many records each
pass imported, updated, kept, rejected or removed."""

from __future__ import annotations

from dataclasses import dataclass

from core.corpus.roles import infer_corpus_role
from core.store.corpus_repo import CorpusRepository


@dataclass
class CorpusCounts:
    role: str = "reference"
    role_source: str = "folder"
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: int = 0
    removed: int = 0
    rules_imported: int = 0


def set_role(corpora: CorpusRepository, counts: dict[str, CorpusCounts], name: str, outcomes: list[str | None]) -> int:
    """Create the corpus or update its inferred role; its id."""
    role, source = infer_corpus_role(name, outcomes)
    corpus_id = corpora.ensure_corpus(name, role, source)
    # Report the role the store actually holds (a user's choice wins over inference).
    stored = corpora.role_of(name)
    assert stored is not None  # ensure_corpus just made sure it exists
    counts[name].role, counts[name].role_source = stored
    return corpus_id
