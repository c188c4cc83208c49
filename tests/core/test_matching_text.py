"""Normalisation, tokens and stemming (§4.1)."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from core.matching.tables import STOP_WORDS
from core.matching.text import (
    bigrams,
    content_tokens,
    embedding_key,
    normalize,
    normalize_mapped,
    ordered_content_tokens,
    stem,
)

_TEXT = st.text(
    alphabet=st.sampled_from(list("abcXYZ -_./:!'\"\t\n\r\x0b\x1cİΣσßﬁ12é") + list(string.punctuation)),
    max_size=40,
)


def test_normalize_strips_ascii_punctuation_and_collapses_whitespace() -> None:
    assert normalize("  ! [Rejected]  main -> main (non-fast-forward)\n") == (
        "rejected main main non fast forward"
    )


def test_stop_word_table_has_101_words() -> None:
    assert len(STOP_WORDS) == 101 and {"when", "then", "not", "they"} <= STOP_WORDS


def test_stem_only_strips_long_words_and_keeps_three_chars() -> None:
    assert stem("fails") == "fail"
    assert stem("updates") == "updat"  # "es" before "s"
    assert stem("uses") == "uses"  # 4 chars: untouched
    assert stem("timed") == "tim"  # 3 chars remain
    assert stem("things") == "thing"  # first matching suffix is "s"


def test_content_tokens_drop_stop_words_and_single_chars() -> None:
    assert content_tokens("When the push is rejected: a conflict") == {"push", "reject", "conflict"}
    assert ordered_content_tokens("pull then push, then pull") == ["pull", "push", "pull"]
    assert bigrams(["pull", "push", "pull"]) == {("pull", "push"), ("push", "pull")}


def test_embedding_key_keeps_punctuation() -> None:
    assert embedding_key("  Git\tPUSH: rejected ") == "git push: rejected"


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_mapped_normalisation_equals_normalize_and_points_into_the_original(text: str) -> None:
    norm, starts, ends = normalize_mapped(text)
    assert norm == normalize(text)
    assert len(starts) == len(ends) == len(norm)
    for char, a, b in zip(norm, starts, ends):
        assert 0 <= a < b <= len(text)
        if char != " ":
            assert char.casefold() in text[a:b].casefold()  # final sigma: σ vs ς
