"""Exact substring search over many normalised texts through an inverted word index.

The reference tests ``needle in text`` without word boundaries (quirk 1), so a plain token
index cannot answer it. But normalised text is words joined by single spaces, which bounds
where a needle can occur. Split the needle at its spaces into ``p0 … pk``:

* ``k = 0``: the needle occurs in a text iff it is a substring of one of its words;
* ``k ≥ 1``: an occurrence needs a word ending with ``p0``, a word starting with ``pk`` and
  every interior ``p1 … pk-1`` as a whole word.

So the trajectories holding such words (read from the word → trajectories postings; the
words themselves are found by one search in the joined vocabulary) are a superset of the
answer; for ``k ≥ 1`` each candidate is then checked with ``needle in text``. The answer is
exactly that of a full scan, and only candidates are touched: at 10^5 trajectories a full
scan of the joined texts per needle dominated a replay.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from core.checked import checked

T = TypeVar("T")


CACHED_NEEDLES = 512  # answers kept per view (at 10^5 texts, 100 KB each)


@dataclass(frozen=True)
class WordSlice:
    """The distinct words of each of ``count`` consecutive texts: ``words`` by the slice's own
    id (in order of first appearance), and one (word id, text within the slice) per distinct
    word of each text, in text order."""

    words: list[str]
    word_of: np.ndarray  # int64
    text_of: np.ndarray  # int64
    count: int


def word_slice(texts: Sequence[str], check: Callable[[], None] | None = None) -> WordSlice:
    vocab: dict[str, int] = {}
    word_of: list[int] = []  # (word id, text) per distinct word of each text, in text order
    text_of: list[int] = []
    for t, text in enumerate(checked(texts, check)):
        distinct = set(text.split(" "))
        distinct.discard("")
        word_of.extend([vocab.setdefault(word, len(vocab)) for word in distinct])
        text_of.extend([t] * len(distinct))
    return WordSlice(list(vocab), np.asarray(word_of, dtype=np.int64), np.asarray(text_of, dtype=np.int64),
                     len(texts))


class WordIndex:
    """Word postings of one view (haystack, signature or reference signature) of T texts."""

    def __init__(self, texts: Sequence[str], check: Callable[[], None] | None = None) -> None:
        self._build(texts, [word_slice(texts, check)])

    @classmethod
    def from_slices(cls, texts: Sequence[str], slices: Sequence[WordSlice]) -> WordIndex:
        """The index ``WordIndex(texts)`` builds, from ``word_slice`` of consecutive slices of
        ``texts`` (made in several processes, ``core.replay.side_slices``): the same word ids,
        postings and answers."""
        index = cls.__new__(cls)
        index._build(texts, slices)
        return index

    def _build(self, texts: Sequence[str], slices: Sequence[WordSlice]) -> None:
        self.texts = tuple(texts)
        self.count = len(self.texts)
        # Normalised texts never hold a newline; if one does, "\n" cannot delimit the
        # vocabulary, so every search scans all texts instead (still exact).
        self.scan_all = any("\n" in text for text in self.texts)
        # One vocabulary, numbered as one pass over the slices in order numbers it.
        vocab: dict[str, int] = {}
        word_parts, text_parts = [], []
        offset = 0
        for part in slices:
            if not vocab:  # the first slice's own ids are the merged ids
                vocab = {word: i for i, word in enumerate(part.words)}
                remap = np.arange(len(part.words), dtype=np.int64)
            else:
                remap = np.fromiter((vocab.setdefault(word, len(vocab)) for word in part.words), dtype=np.int64,
                                    count=len(part.words))
            word_parts.append(remap[part.word_of])
            text_parts.append(part.text_of + offset)
            offset += part.count
        if offset != self.count:
            raise ValueError(f"word slices cover {offset} texts, not {self.count}")
        words = np.concatenate(word_parts) if word_parts else np.zeros(0, dtype=np.int64)
        text_of = np.concatenate(text_parts) if text_parts else np.zeros(0, dtype=np.int64)
        # Postings (word id -> texts holding it, ascending) by one stable sort, not a list per word.
        order = np.argsort(words, kind="stable")
        ends = np.cumsum(np.bincount(words, minlength=len(vocab)))
        self._finish(list(vocab), text_of[order], ends)

    @classmethod
    def from_postings(cls, texts: Sequence[str], words: list[str], flat: np.ndarray, ends: np.ndarray) -> WordIndex:
        """The index ``WordIndex(texts)`` built, from its parts (``core.replay.side_codec``):
        ``words`` in id order, every posting list concatenated (``flat``) and where each ends."""
        index = cls.__new__(cls)
        index.texts = tuple(texts)
        index.count = len(index.texts)
        index.scan_all = any("\n" in text for text in index.texts)
        index._finish(words, flat, ends)
        return index

    @property
    def postings_flat(self) -> tuple[np.ndarray, np.ndarray]:
        """(every posting list concatenated, where each ends): what ``from_postings`` reads."""
        return self._flat.astype(np.int64, copy=False), self._bounds[1:].copy()

    @property
    def postings(self) -> list[np.ndarray]:
        """Each word's posting list (texts holding it, ascending), by word id."""
        return [self._posting(w) for w in range(len(self.words))]

    def _posting(self, word: int) -> np.ndarray:
        return self._flat[self._bounds[word]:self._bounds[word + 1]]

    def _finish(self, words: list[str], flat: np.ndarray, ends: np.ndarray) -> None:
        self.words = words
        # The postings stay one array with its bounds: a list of one array per word was 1.4
        # million objects at 10^6 texts (seconds to make, and pages every scoring worker copied
        # as it touched their reference counts).
        self._flat = flat
        self._bounds = np.concatenate([np.zeros(1, dtype=np.int64), np.asarray(ends, dtype=np.int64)])
        self._joined = "\n" + "\n".join(self.words) + "\n"
        # Each word's start in ``_joined``: after the leading "\n", the lengths before it plus one per word.
        lengths = np.fromiter((len(w) for w in self.words), dtype=np.int64, count=len(self.words))
        self._starts = 1 + np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64) \
            if self.words else np.zeros(0, dtype=np.int64)
        self._exact = {word: i for i, word in enumerate(self.words)}
        self._answers: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def _words_matching(self, pattern: str) -> np.ndarray:
        """Word ids whose "\\n"-delimited entry contains ``pattern`` (which may use "\\n")."""
        offsets = [m.start() for m in re.finditer(re.escape(pattern), self._joined)]
        if not offsets:
            return np.zeros(0, dtype=np.int64)
        # An offset on a delimiter belongs to the word after it.
        at = np.asarray(offsets, dtype=np.int64)
        delimiter = np.fromiter((self._joined[o] == "\n" for o in offsets), dtype=bool, count=len(offsets))
        at = at + delimiter
        ids = np.searchsorted(self._starts, at, side="right") - 1
        return np.unique(ids[(ids >= 0) & (ids < len(self.words))])

    def _texts_with(self, word_ids: np.ndarray) -> np.ndarray:
        if word_ids.size == 0:
            return np.zeros(0, dtype=np.int64)
        if word_ids.size == 1:
            return self._posting(int(word_ids[0]))
        return np.unique(np.concatenate([self._posting(w) for w in word_ids.tolist()]))

    def candidates(self, needle: str) -> tuple[np.ndarray, bool]:
        """(text indices that may contain ``needle``, whether they certainly do)."""
        parts = needle.split(" ")
        if len(parts) == 1:
            return self._texts_with(self._words_matching(parts[0])), True
        first, last, interior = parts[0], parts[-1], parts[1:-1]
        found = self._texts_with(self._words_matching(first + "\n")) if first else np.arange(self.count)
        for word in interior:
            if found.size == 0:
                break
            if not word:  # only a text with a double space could match: do not filter
                continue
            wid = self._exact.get(word)
            ids = np.array([wid], dtype=np.int64) if wid is not None else np.zeros(0, np.int64)
            found = np.intersect1d(found, self._texts_with(ids), assume_unique=True)
        if last and found.size:
            found = np.intersect1d(found, self._texts_with(self._words_matching("\n" + last)), assume_unique=True)
        return found, False

    def contains(self, needle: str) -> np.ndarray:
        """bool [T]: which texts contain ``needle`` (a plain substring test, as ``in``).

        Answers are kept for the last ``CACHED_NEEDLES`` needles: rules share alias and
        distinctive phrases, context items and often triggers, and each search scans the
        joined vocabulary. The caller gets its own copy (callers modify the answer).
        """
        with self._lock:  # an index can be shared by runs in two threads (view_cache)
            known = self._answers.get(needle)
            if known is not None:
                self._answers.move_to_end(needle)
                return known.copy()
        out = self._contains(needle)
        with self._lock:
            self._answers[needle] = out.copy()
            if len(self._answers) > CACHED_NEEDLES:
                self._answers.popitem(last=False)
        return out

    def _contains(self, needle: str) -> np.ndarray:
        out = np.zeros(self.count, dtype=bool)
        if not needle or self.count == 0:
            return out
        if self.scan_all or "\n" in needle:
            found, certain = np.arange(self.count), False
        else:
            found, certain = self.candidates(needle)
        if certain:
            out[found] = True
        else:
            texts = self.texts
            out[[t for t in found.tolist() if needle in texts[t]]] = True
        return out
