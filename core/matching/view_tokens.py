"""The views' token ids, computed per slice of trajectories and merged into one vocabulary.

``index_views`` needs every view's content tokens as ids into one vocabulary, in the order a
single pass assigns them: first every haystack in trajectory order, then every signature,
then every reference signature (each new token gets the next id). Tokenising is the largest
part of building a large run's trajectory side, so a run may tokenise slices of its
trajectories in several processes (``core.replay.side_slices``): each slice numbers its own
tokens (``SliceTokens``) and records, per view, the order in which they first appear in it.
``merge_tokens`` replays those first appearances view by view, slice by slice, which is the
single pass's order: the merged ids, and so every matrix built from them, are the ones one
slice gives (``test_view_slices``). Word lists for the word indexes are split the same way
(``WordSlice``, merged by ``WordIndex.from_slices``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.checked import checked
from core.matching.text import content_token
from core.matching.views import TrajectoryViews
from core.matching.word_index import WordSlice, word_slice

#: the token views, in the order a single pass numbers their tokens
TOKEN_VIEWS = ("haystack", "signature", "reference_signature")
#: the word-indexed views (``ViewIndex.words`` keys) and the view text each indexes
WORD_VIEWS = {"hay": "haystack", "sig": "signature", "ref": "reference_signature"}


@dataclass(frozen=True)
class ViewColumns:
    """What the index reads from each view besides its tokens (texts, domain, class, outcome),
    column by column: a slice built elsewhere sends these strings, not the views."""

    haystack: list[str]
    signature: list[str]
    reference_signature: list[str]
    domain: list[str | None]
    failure_class: list[str | None]
    success: list[bool]

    @classmethod
    def of(cls, views: Sequence[TrajectoryViews]) -> ViewColumns:
        return cls([v.haystack for v in views], [v.signature for v in views], [v.reference_signature for v in views],
                   [v.domain for v in views], [v.failure_class for v in views], [v.success for v in views])

    @classmethod
    def joined(cls, parts: Sequence[ViewColumns]) -> ViewColumns:
        return cls(*([value for part in parts for value in getattr(part, f.name)]
                     for f in dataclasses.fields(cls)))

    def __len__(self) -> int:
        return len(self.haystack)


@dataclass(frozen=True)
class SliceTokens:
    """One slice's token ids (its own numbering) and word lists; plain arrays and strings, so
    a worker process sends it back cheaply."""

    tokens: list[str]  # the slice's vocabulary, by its own id
    first_seen: tuple[np.ndarray, ...]  # per token view: own ids in order of first appearance there
    flat: tuple[np.ndarray, ...]  # per token view: every row's own ids, concatenated (int64)
    lengths: tuple[np.ndarray, ...]  # per token view: each row's length (int64)
    words: dict[str, WordSlice] | None  # per word-indexed view; None: no word indexes
    columns: ViewColumns


def tokenize_slice(
    views: Sequence[TrajectoryViews], with_words: bool, check: Callable[[], None] | None = None,
) -> SliceTokens:
    """The content token ids of each view of ``views`` (and their distinct words when
    ``with_words``). ``check`` is called every few thousand views (a cancel: it may raise)."""
    vocab: dict[str, int] = {}
    # The views are normalised already, so their words are split as they are, and each
    # distinct word is tokenised once (word -> token id, -1: not a content token): at 10^5
    # trajectories the per-word work was most of a run's fixed cost.
    word_ids: dict[str, int] = {}

    def ids(text: str) -> list[int]:
        get = word_ids.get
        out = []
        for word in text.split(" "):
            tid = get(word)
            if tid is None:
                token = content_token(word)
                tid = word_ids[word] = -1 if token is None else vocab.setdefault(token, len(vocab))
            if tid >= 0:
                out.append(tid)
        return out

    flats, lengths, first_seen = [], [], []
    for view in TOKEN_VIEWS:
        rows = [ids(getattr(v, view)) for v in checked(views, check)]
        length = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64, count=int(length.sum()))
        flats.append(flat)
        lengths.append(length)
        first_seen.append(_in_order_of_appearance(flat))
    words = None
    if with_words:
        words = {short: word_slice([getattr(v, name) for v in views], check) for short, name in WORD_VIEWS.items()}
    return SliceTokens(list(vocab), tuple(first_seen), tuple(flats), tuple(lengths), words, ViewColumns.of(views))


def _in_order_of_appearance(flat: np.ndarray) -> np.ndarray:
    """The distinct values of ``flat`` in the order they first occur."""
    values, first = np.unique(flat, return_index=True)
    return values[np.argsort(first, kind="stable")]


@dataclass(frozen=True)
class MergedTokens:
    """Every slice's ids in one vocabulary: per token view, all rows' ids and lengths."""

    vocab: dict[str, int]
    flat: tuple[np.ndarray, ...]
    lengths: tuple[np.ndarray, ...]


def merge_tokens(slices: Sequence[SliceTokens]) -> MergedTokens:
    """One vocabulary for all slices, numbered as a single pass over them in order numbers it."""
    vocab: dict[str, int] = {}
    remaps = [np.full(len(s.tokens), -1, dtype=np.int64) for s in slices]
    for view in range(len(TOKEN_VIEWS)):
        for tokens_slice, remap in zip(slices, remaps, strict=True):
            tokens = tokens_slice.tokens
            remap[tokens_slice.first_seen[view]] = [
                vocab.setdefault(tokens[own], len(vocab)) for own in tokens_slice.first_seen[view].tolist()]
    flat = tuple(np.concatenate([remap[s.flat[view]] for s, remap in zip(slices, remaps, strict=True)])
                 if slices else np.zeros(0, dtype=np.int64) for view in range(len(TOKEN_VIEWS)))
    lengths = tuple(np.concatenate([s.lengths[view] for s in slices]) if slices else np.zeros(0, dtype=np.int64)
                    for view in range(len(TOKEN_VIEWS)))
    return MergedTokens(vocab, flat, lengths)
