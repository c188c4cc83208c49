"""The key that makes two rule versions duplicates: the same trigger and the same directive
after case folding and whitespace collapsing.

It lives in the store because each ``rule_version`` row stores it (``dup_key``): the rules
table groups duplicates inside its SQL paging, and SQL cannot case-fold Unicode the way
Python does (SQLite's ``lower`` is ASCII only), so the key is computed once, here, when the
version is written.
"""

from __future__ import annotations

import hashlib


def normalise(text: str) -> str:
    return " ".join(text.casefold().split())


def duplicate_key_hash(trigger: str, directive: str) -> str:
    """32 hex characters of a sha256 over the normalised trigger and directive."""
    joined = normalise(trigger) + "\x1f" + normalise(directive)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:32]
