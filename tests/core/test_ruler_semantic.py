"""With the real embedding model (loaded once for the module): raw cosine with a low
threshold on short strings is flagged blind; the product's semantic_f1 holds on paraphrases
better than token_f1 and still catches another domain's trigger."""

from __future__ import annotations

import pytest
from test_ruler_harness import mutations, rows

from core.embeddings import EmbeddingUnavailable, SentenceEmbedder
from core.metrics.ruler import comparators as C
from core.metrics.ruler.harness import check


@pytest.fixture(scope="module")
def embed():  # type: ignore[no-untyped-def]
    try:
        model = SentenceEmbedder()
        model.load()
    except EmbeddingUnavailable as error:
        pytest.skip(f"no embedding model: {error}")
    return C.MemoEmbed(model.encode)


def test_low_threshold_cosine_is_flagged_blind(embed) -> None:  # type: ignore[no-untyped-def]
    report = check(C.cosine_comparator(embed, threshold=0.3), rows(), mutations())
    blind = {f.mutation for f in report.flags if f.kind == "blind"}
    assert {"tool_swap", "other_error_class"} <= blind
    assert report.floor.value is not None  # published even for a bad comparator


def test_semantic_f1_with_the_model_catches_another_domain(embed) -> None:  # type: ignore[no-untyped-def]
    report = check(C.semantic_f1_comparator(embed), rows(), mutations())
    other = next(m for m in report.mutations if m.mutation == "other_domain")
    assert other.sensitivity == pytest.approx(1.0)
    assert report.config["embedding"] is None or isinstance(report.config["embedding"], str)
    assert not any(f.mutation in ("case", "punctuation", "whitespace") for f in report.flags)
