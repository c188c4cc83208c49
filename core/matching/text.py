"""Text normalisation and tokens, as the 0.3.1 matcher defines them (§4.1).

``normalize`` lowercases, turns every ASCII punctuation character into a space, collapses
whitespace and trims. ``normalize_mapped`` does the same and also remembers, for each
character of the result, which characters of the original text it came from, so that
positions found in a normalised view can be highlighted in the original field.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterable, Sequence

from core.matching.tables import STOP_WORDS

__all__ = [
    "STOP_WORDS",
    "bigrams",
    "content_token",
    "content_tokens",
    "embedding_key",
    "normalize",
    "normalize_mapped",
    "ordered_content_tokens",
    "stem",
    "words",
]

_PUNCTUATION = frozenset(string.punctuation)
_TO_SPACE = str.maketrans({ch: " " for ch in string.punctuation})
_SUFFIXES = ("ing", "ed", "es", "ly", "s")


def normalize(text: str) -> str:
    """Lowercase, punctuation to spaces, whitespace collapsed, trimmed.

    ``str.split()`` splits on the same whitespace class as the reference's ``\\s+``.
    """
    return " ".join(text.lower().translate(_TO_SPACE).split())


def normalize_mapped(text: str) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """Return ``(normalized, starts, ends)``: char *i* of the result came from
    ``text[starts[i]:ends[i]]``. The result equals ``normalize(text)``.

    Lowercasing can expand one character into several (``İ`` -> ``i̇``); all of them map
    to the one original character. The whole text is lowercased at once (final-sigma
    rules depend on context); only the lengths are taken per character.
    """
    lowered = text.lower()
    owner: list[int] = []  # original index for each char of `lowered`
    for index, char in enumerate(text):
        owner.extend([index] * len(char.lower()))
    if len(owner) != len(lowered):  # defensive: fall back to proportional ownership
        owner = [min(i, len(text) - 1) for i in range(len(lowered))]

    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    gap_at: int | None = None  # original index where a pending whitespace run began
    for position, char in enumerate(lowered):
        src = owner[position]
        if char in _PUNCTUATION or char.isspace():
            if gap_at is None:
                gap_at = src
            continue
        if gap_at is not None and out:
            out.append(" ")
            starts.append(gap_at)
            ends.append(gap_at + 1)
        gap_at = None
        out.append(char)
        starts.append(src)
        ends.append(src + 1)
    return "".join(out), tuple(starts), tuple(ends)


def stem(word: str) -> str:
    """Light suffix stripping: only words longer than 4 characters lose the first matching
    suffix of ing/ed/es/ly/s, and only if at least 3 characters remain."""
    if len(word) <= 4:
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _is_content(word: str) -> bool:
    return len(word) > 1 and word not in STOP_WORDS


@functools.lru_cache(maxsize=1 << 18)
def _token(word: str) -> str | None:
    # Corpora repeat a small vocabulary; caching the per-word work halves tokenising time.
    return stem(word) if _is_content(word) else None


def content_token(word: str) -> str | None:
    """The token of one word of a normalised text (stemmed), or None for a stop word or a
    one-character word."""
    return _token(word)


def ordered_content_tokens(text: str) -> list[str]:
    """Stemmed content tokens of ``normalize(text)``, in order, duplicates kept."""
    return [t for w in normalize(text).split() if (t := _token(w)) is not None]


def content_tokens(text: str) -> frozenset[str]:
    """Set of stemmed, stop-word-free tokens longer than one character."""
    return frozenset(ordered_content_tokens(text))


def bigrams(tokens: Sequence[str]) -> frozenset[tuple[str, str]]:
    """Set of adjacent pairs of *tokens*."""
    return frozenset(zip(tokens[:-1], tokens[1:]))


def words(normalized: str) -> Iterable[tuple[int, int, str]]:
    """``(start, end, word)`` for each space-separated word of an already normalised text."""
    position = 0
    for word in normalized.split(" "):
        if word:
            yield position, position + len(word), word
        position += len(word) + 1


def embedding_key(text: str) -> str:
    """The text the reference hands its embedder (and caches on): lowercased, whitespace
    collapsed, trimmed. Punctuation is kept."""
    return " ".join(text.lower().split())
