"""Corpus roles: from expected_outcome when the annotations decide, else from the folder."""

from __future__ import annotations

import pytest

from core.corpus.roles import infer_corpus_role, role_for_folder, role_for_outcome


@pytest.mark.parametrize(
    ("outcome", "role"),
    [("should_extract", "extraction"), ("should_silence", "silence"), ("should_reject", "rejection"), (None, None),
     ("bogus", None)],
)
def test_role_for_outcome(outcome: str | None, role: str | None) -> None:
    assert role_for_outcome(outcome) == role


@pytest.mark.parametrize(
    ("folder", "role"),
    [
        ("field-test/corpus/curated/nearmiss", "rejection"),
        ("corpus/public/nearmiss", "rejection"),
        ("corpus/public/adversarial/tool_output_injection", "rejection"),
        ("adversarial", "rejection"),
        ("corpus/public/counterexample", "rejection"),
        ("corpus/public/staleness", "rejection"),
        ("field-test/corpus/curated/successes", "silence"),
        ("field-test/corpus/curated/failures/negative", "silence"),
        ("field-test/corpus/curated/failures/positive", "extraction"),
        ("field-test/corpus/golden", "extraction"),
        ("field-test/corpus/golden/extra", "extraction"),
        ("field-test/corpus/curated/corrections", "extraction"),
        ("field-test/corpus/raw/ci", "extraction"),
        ("corpus/public/reference-expansion/paraphrase-diversity", "extraction"),
        ("field-test/corpus/curated/noisy", "reference"),
        ("corpus/public/golden_replay", "reference"),
        ("field-test/corpus/curated/failures", "reference"),
        ("somewhere/else", "reference"),
        ("", "reference"),
        ("Field-Test\\Corpus\\Curated\\NearMiss", "rejection"),
    ],
)
def test_role_for_folder(folder: str, role: str) -> None:
    assert role_for_folder(folder) == role


def test_majority_of_annotations_decides_over_the_folder() -> None:
    outcomes = ["should_reject"] * 41 + ["should_extract"] * 2 + [None] * 7
    assert infer_corpus_role("field-test/corpus/curated/nearmiss", outcomes) == ("rejection", "expected_outcome")
    assert infer_corpus_role("corpus/public/staleness", ["should_reject"]) == ("rejection", "expected_outcome")
    assert infer_corpus_role("field-test/corpus/curated/noisy", ["should_extract"] * 5) == ("extraction", "expected_outcome")


def test_no_annotations_or_a_tie_falls_back_to_the_folder() -> None:
    assert infer_corpus_role("field-test/corpus/raw/opencode", [None, None]) == ("extraction", "folder")
    assert infer_corpus_role("x/successes", []) == ("silence", "folder")
    assert infer_corpus_role("x/nearmiss", ["should_extract", "should_silence"]) == ("rejection", "folder")
