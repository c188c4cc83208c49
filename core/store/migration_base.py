"""The migration record type, in its own module so migration steps defined in other
modules (``migrations_labels``, ``migrations_promotion``) can import it without a cycle."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    statements: Sequence[str]
