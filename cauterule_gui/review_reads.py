"""What the Review tab shows about one piece of evidence, prepared off the GUI thread."""

from __future__ import annotations

from typing import Any

from core.store.replay_repo import StoredOutcome

from cauterule_gui.models.formatting import BUCKET_SYMBOLS, BUCKET_WORDS, number, signed

FIRST_ROWS = 200  # an evidence bucket's rows read with the bundle (a deeper scroll reads its page then)


def breakdown_text(outcome: StoredOutcome) -> str:
    word = BUCKET_WORDS.get(outcome.bucket, outcome.bucket)
    return (
        f"{BUCKET_SYMBOLS.get(outcome.bucket, '')} {word.upper()}  ·  score {number(outcome.score)}  ·  "
        f"token F1 {number(outcome.token_f1)}  ·  bigram {number(outcome.bigram)}  ·  "
        f"cosine {number(outcome.cosine)}  ·  view {outcome.view or '—'}  ·  floor {outcome.floor or '—'}  ·  "
        f"threshold {number(outcome.threshold)}  ·  margin {signed(outcome.margin)}"
        "\nMatched text is highlighted, bold and underlined; ⚠ marks the failure point, ◆ a step that matched."
    )


def preloaded(bundle: Any) -> Any:
    """Read the pages the board shows at once (every broken row, which its header lists, and
    each bucket's first page) here, on the executor's thread: the buckets load pages lazily."""
    for bucket, outcomes in bundle.outcomes.items():
        if bucket == "broken":
            list(outcomes)
        else:
            outcomes[:FIRST_ROWS]
    return bundle
