"""Waivers are read and written in one place: ``core/store/review_repo.py`` (``store prune`` only
reads which runs a waiver points into, so that it never deletes them)."""

from __future__ import annotations

import re
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
# The schema defines the table; the frozen legacy steps and the Alembic revisions create it.
SCHEMA = re.compile(r"(tables[a-z_]*|migrations[a-z_]*|migration_base)\.py$")
WAIVER_SQL = re.compile(r"\b(FROM|INTO|UPDATE|JOIN)\s+waiver\b|\bWaiverRow\(", re.IGNORECASE)
WAIVER_WRITE = re.compile(r"\b(INTO|UPDATE|DELETE\s+FROM)\s+waiver\b|\bWaiverRow\(", re.IGNORECASE)
CITATION_READERS = {"prune.py"}  # reads the runs people's work cites; never writes a waiver


def test_only_the_review_repository_touches_the_waiver_table() -> None:
    offenders = sorted(
        str(path.relative_to(CORE.parent))
        for path in CORE.rglob("*.py")
        if "alembic" not in path.parts and not SCHEMA.search(path.name)
        and path.name not in ("review_repo.py", *CITATION_READERS) and WAIVER_SQL.search(path.read_text(encoding="utf-8"))
    )
    assert offenders == []


def test_the_citation_readers_never_write_a_waiver() -> None:
    for name in CITATION_READERS:
        (path,) = CORE.rglob(name)
        assert not WAIVER_WRITE.search(path.read_text(encoding="utf-8"))
