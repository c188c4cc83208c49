"""The trajectory side of the batch matcher, built once per trajectory set and reused.

``index_views`` tokenises every view once into sparse 0/1 matrices (tokens, bigrams), joins
the normalised texts for substring search, and, from ``PRUNE_MIN_TRAJECTORIES`` up, builds
per-view word indexes (``word_index``) so substring tests touch only candidate trajectories.
Split from ``batch`` (which scores rule sets against a ``ViewIndex``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from core.matching.tables import DOMAIN_GROUPS
from core.matching.text import normalize
from core.matching.view_tokens import WORD_VIEWS, SliceTokens, ViewColumns, merge_tokens, tokenize_slice
from core.matching.views import TrajectoryViews
from core.matching.word_index import WordIndex

_GROUP_CODE = {group: code for code, group in enumerate(sorted(set(DOMAIN_GROUPS.values())))}


@dataclass(frozen=True)
class ViewIndex:
    """Trajectory-side precomputation; build once with :func:`index_views`, reuse across
    rule sets (the what-if loop)."""

    views: Sequence[TrajectoryViews]  # a tuple, or a run's views built on demand (``side_slices``)
    vocab: dict[str, int]
    hay_tokens: sparse.csr_matrix  # [T, V] 0/1
    sig_tokens: sparse.csr_matrix
    union_tokens: sparse.csr_matrix  # H or S
    ref_tokens: sparse.csr_matrix
    hay_size: np.ndarray  # [T] |tok(H)|
    sig_size: np.ndarray
    bigram_vocab: Mapping[tuple[str, str], int]  # bigram -> column; iterates in column order
    hay_bigrams: sparse.csr_matrix  # [T, Bv]
    sig_bigrams: sparse.csr_matrix
    hay_joined: str
    hay_starts: np.ndarray
    sig_joined: str
    sig_starts: np.ndarray
    ref_joined: str
    ref_starts: np.ndarray
    domain_norm: tuple[str | None, ...]
    group: np.ndarray  # [T] int, -1 unknown
    success: np.ndarray  # [T] bool
    words: dict[str, WordIndex] | None = None  # per view; None: scan the joined texts
    _transposed: dict[str, sparse.csr_matrix] = field(default_factory=dict, repr=False, compare=False)
    _domain_rows: dict[str, list[int]] = field(default_factory=dict, repr=False, compare=False)
    _scanned: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.views)

    def columns(self, name: str) -> sparse.csr_matrix:
        """``getattr(self, name).T`` as CSR [V, T], built once: every chunk multiplies by it,
        and transposing per chunk cost more than the products."""
        matrix = self._transposed.get(name)
        if matrix is None:
            matrix = getattr(self, name).T.tocsr()
            self._transposed[name] = matrix
        return matrix

    def domain_rows(self) -> dict[str, list[int]]:
        """Normalised domain -> the trajectories holding it, built once (a context item also
        matches a trajectory's domain; building this per chunk was a loop over every trajectory)."""
        if not self._domain_rows:
            for t, dom in enumerate(self.domain_norm):
                if dom is not None:
                    self._domain_rows.setdefault(dom, []).append(t)
        return self._domain_rows

    def contains(self, needle: str, view: str) -> np.ndarray:
        """bool [T]: which trajectories' view ``hay`` / ``sig`` / ``ref`` contains ``needle``.

        With word indexes (the default) only trajectories that can hold the needle are
        tested (exact, see ``word_index``); without them the joined texts are scanned.
        """
        if self.words is not None:
            return self.words[view].contains(needle)
        # Small sets scan the joined texts; the answers are kept with the index, which is
        # reused for the next run on the same trajectories (the what-if loop asks the same
        # needles again). Bounded: at most SCANNED_KEPT answers of < 2,000 bytes each.
        known = self._scanned.get((needle, view))
        if known is not None:
            return known.copy()
        joined, starts = {
            "hay": (self.hay_joined, self.hay_starts),
            "sig": (self.sig_joined, self.sig_starts),
            "ref": (self.ref_joined, self.ref_starts),
        }[view]
        found = _contains(needle, joined, starts, len(self.views))
        if len(self._scanned) < SCANNED_KEPT:
            self._scanned[(needle, view)] = found.copy()
        return found


class BigramIds(Mapping[tuple[str, str], int]):
    """Bigram -> its column in the bigram matrices, answered from the sorted bigram codes
    (first token id << 32 | second token id; the column is the code's position) instead of a
    dict of tuples: at 10^6 trajectories that dict held 3.5 million tuples, seconds of the
    run's serial part and pages every scoring worker copied. A rule's few bigrams are looked
    up per chunk. Iterates in column order, like the dict it replaces."""

    def __init__(self, vocab: dict[str, int], codes: np.ndarray) -> None:
        self._vocab = vocab
        self._codes = codes

    def _column(self, key: object) -> int | None:
        if not isinstance(key, tuple) or len(key) != 2:
            return None
        first, second = self._vocab.get(key[0]), self._vocab.get(key[1])
        if first is None or second is None:
            return None
        code = (first << 32) | second
        at = int(np.searchsorted(self._codes, code))
        return at if at < self._codes.size and int(self._codes[at]) == code else None

    def __getitem__(self, key: tuple[str, str]) -> int:
        column = self._column(key)
        if column is None:
            raise KeyError(key)
        return column

    def __contains__(self, key: object) -> bool:
        return self._column(key) is not None

    def __len__(self) -> int:
        return int(self._codes.size)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        token_of = list(self._vocab)
        return zip([token_of[t] for t in (self._codes >> 32).tolist()],
                   [token_of[t] for t in (self._codes & 0xFFFFFFFF).tolist()])


def candidate_columns(
    index: ViewIndex, token_rules: tuple[sparse.csr_matrix, sparse.csr_matrix], hits: Iterable[np.ndarray]
) -> np.ndarray:
    """Sorted positions of the trajectories a chunk of rules can score above 0 on (exact pruning).

    ``token_rules``: the chunk's trigger + alias tokens [R, V] and signature tokens [S, V];
    ``hits``: bool [T] substring answers (trigger, signature, alias and distinctive phrases).
    Without a shared token (so no token F1, bigram or alias-token floor) and without a
    substring hit (no exact, signature, phrase or distinctive floor), a lexical pair scores 0
    with every part 0; those pairs need not be scored. Read from the token -> trajectories
    postings (the columns of the [V, T] matrices), so the cost follows the candidates.
    """
    mask = np.zeros(len(index), dtype=bool)
    for rules, name in zip(token_rules, ("union_tokens", "ref_tokens")):
        if rules.nnz:
            postings = index.columns(name)
            for token in np.unique(rules.indices).tolist():
                mask[postings.indices[postings.indptr[token]:postings.indptr[token + 1]]] = True
    for hit in hits:
        mask |= hit
    return np.flatnonzero(mask)


def _joined(texts: Sequence[str]) -> tuple[str, np.ndarray]:
    starts = np.zeros(len(texts), dtype=np.int64)
    position = 0
    for i, text in enumerate(texts):
        starts[i] = position
        position += len(text) + 1
    return "\n".join(texts), starts


def _contains(needle: str, joined: str, starts: np.ndarray, count: int) -> np.ndarray:
    """bool [count]: which of the joined texts contain *needle* (non-empty, no newline).

    After a hit the search resumes at the next text's start: a common needle ("error")
    occurs many times per text, and listing every occurrence cost more than the rest of a
    small replay. So the loop runs at most once per text that holds the needle.
    """
    found = np.zeros(count, dtype=bool)
    if not needle or count == 0:
        return found
    bounds = starts.tolist()
    find = joined.find
    position = find(needle)
    while position >= 0:
        text = bisect_right(bounds, position) - 1
        found[text] = True
        if text + 1 >= count:
            break
        position = find(needle, bounds[text + 1])
    return found


def _binary(rows: Iterable[Iterable[int]], n_rows: int, n_cols: int) -> sparse.csr_matrix:
    """0/1 CSR matrix with a 1 at every (row, id) listed (repeats allowed)."""
    indptr = [0]
    indices: list[int] = []
    for row in rows:
        indices.extend(row)
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.float64)
    matrix = sparse.csr_matrix((data, np.asarray(indices, dtype=np.int64), indptr), shape=(n_rows, n_cols))
    matrix.sum_duplicates()  # sorts each row's ids and merges repeats (in C, not per row in Python)
    matrix.data[:] = 1.0
    return matrix


def _binary_flat(flat: np.ndarray, lengths: np.ndarray, n_rows: int, n_cols: int) -> sparse.csr_matrix:
    """``_binary`` of the rows given as every row's ids concatenated (``flat``) and their lengths."""
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    data = np.ones(flat.size, dtype=np.float64)
    matrix = sparse.csr_matrix((data, flat, indptr), shape=(n_rows, n_cols))
    matrix.sum_duplicates()  # sorts each row's ids and merges repeats (in C, not per row in Python)
    matrix.data[:] = 1.0
    return matrix


def _row_concat(
    first: np.ndarray, first_len: np.ndarray, second: np.ndarray, second_len: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ids of ``first`` followed by its ids of ``second``, as (flat, lengths)."""
    rows = np.concatenate([np.repeat(np.arange(first_len.size), first_len),
                           np.repeat(np.arange(second_len.size), second_len)])
    order = np.argsort(rows, kind="stable")  # by row; within a row, first's ids before second's
    return np.concatenate([first, second])[order], first_len + second_len


def _pair_codes(flat: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, code) of every adjacent token pair of each row, code = first << 32 | second:
    the bigrams of all views at once as arrays, instead of a tuple per pair."""
    row_of = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    same_row = row_of[1:] == row_of[:-1]
    return row_of[1:][same_row], (flat[:-1][same_row] << 32) | flat[1:][same_row]


def _word_indexes(
    columns: ViewColumns, slices: Sequence[SliceTokens], check: Callable[[], None] | None,
) -> dict[str, WordIndex]:
    if any(s.words is None for s in slices):  # tokenised without word lists: list the words here
        return {short: WordIndex(getattr(columns, name), check) for short, name in WORD_VIEWS.items()}
    return {short: WordIndex.from_slices(getattr(columns, name), [s.words[short] for s in slices
                                                                  if s.words is not None])
            for short, name in WORD_VIEWS.items()}


def _coded(rows: np.ndarray, ids: np.ndarray, n_rows: int, n_cols: int) -> sparse.csr_matrix:
    matrix = sparse.csr_matrix((np.ones(ids.size), (rows, ids)), shape=(n_rows, n_cols))
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix


SCANNED_KEPT = 8_192

#: below this many trajectories a scan of the joined texts is cheaper than the word index
PRUNE_MIN_TRAJECTORIES = 2_000


def index_views(
    views: Sequence[TrajectoryViews], prune: bool | None = None, check: Callable[[], None] | None = None,
    slices: Sequence[SliceTokens] | None = None,
) -> ViewIndex:
    """``check`` is called every few thousand views (a caller's cancel: it may raise).
``prune``: build word indexes so substring tests touch only candidate trajectories
    (exact). ``False`` scans every text (the property test's oracle); ``None`` prunes from
    ``PRUNE_MIN_TRAJECTORIES`` trajectories up. ``slices``: the views' tokens computed
    already, per consecutive slice (``view_tokens.tokenize_slice``, with word lists when
    pruning); the index is the one built from the views alone."""
    if isinstance(views, list):
        views = tuple(views)  # any other sequence is kept as it is (a run's views built on demand)
    if prune is None:
        prune = len(views) >= PRUNE_MIN_TRAJECTORIES
    count = len(views)
    if slices is None:
        slices = [tokenize_slice(views, prune, check)]
    columns = slices[0].columns if len(slices) == 1 else ViewColumns.joined([s.columns for s in slices])
    if len(columns) != count:
        raise ValueError(f"the slices hold {len(columns)} views, not {count}")
    merged = merge_tokens(slices)
    vocab = merged.vocab
    (hay_flat, sig_flat, ref_flat), (hay_len, sig_len, ref_len) = merged.flat, merged.lengths
    hay_pairs, sig_pairs = _pair_codes(hay_flat, hay_len), _pair_codes(sig_flat, sig_len)
    codes, inverse = np.unique(np.concatenate([hay_pairs[1], sig_pairs[1]]), return_inverse=True)
    bigram_vocab = BigramIds(vocab, codes)
    n_vocab, n_bigrams = len(vocab), len(bigram_vocab)
    split = hay_pairs[1].size
    hay = _binary_flat(hay_flat, hay_len, count, n_vocab)
    sig = _binary_flat(sig_flat, sig_len, count, n_vocab)
    union = _binary_flat(*_row_concat(hay_flat, hay_len, sig_flat, sig_len), count, n_vocab)
    hay_joined, hay_starts = _joined(columns.haystack)
    sig_joined, sig_starts = _joined(columns.signature)
    ref_joined, ref_starts = _joined(columns.reference_signature)
    groups = []
    for failure_class in columns.failure_class:
        segment = failure_class.split("/")[0] if failure_class else ""
        group = DOMAIN_GROUPS.get(segment.lower()) if segment else None
        groups.append(-1 if group is None else _GROUP_CODE[group])
    return ViewIndex(
        views=views,
        vocab=vocab,
        hay_tokens=hay,
        sig_tokens=sig,
        union_tokens=union,
        ref_tokens=_binary_flat(ref_flat, ref_len, count, n_vocab),
        hay_size=np.asarray(hay.sum(axis=1)).ravel(),
        sig_size=np.asarray(sig.sum(axis=1)).ravel(),
        bigram_vocab=bigram_vocab,
        hay_bigrams=_coded(hay_pairs[0], inverse[:split], count, n_bigrams),
        sig_bigrams=_coded(sig_pairs[0], inverse[split:], count, n_bigrams),
        hay_joined=hay_joined,
        hay_starts=hay_starts,
        sig_joined=sig_joined,
        sig_starts=sig_starts,
        ref_joined=ref_joined,
        ref_starts=ref_starts,
        domain_norm=tuple(None if domain is None else normalize(domain) for domain in columns.domain),
        group=np.asarray(groups, dtype=np.int64),
        success=np.asarray(columns.success, dtype=bool),
        words=_word_indexes(columns, slices, check) if prune else None,
    )
