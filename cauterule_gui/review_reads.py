"""What the Review tab shows about one piece of evidence, prepared off the GUI thread."""

from __future__ import annotations

from core.replay.twins import TWIN_FLOOR
from core.store.replay_repo import StoredOutcome

from cauterule_gui.glossary import explain
from cauterule_gui.models.formatting import BUCKET_SYMBOLS, BUCKET_WORDS, number, signed


def breakdown_text(outcome: StoredOutcome) -> str:
    word = BUCKET_WORDS.get(outcome.bucket, outcome.bucket)
    return (
        f"{BUCKET_SYMBOLS.get(outcome.bucket, '')} {word.upper()}  ·  score {number(outcome.score)}  ·  "
        f"token F1 {number(outcome.token_f1)}  ·  bigram {number(outcome.bigram)}  ·  "
        f"cosine {number(outcome.cosine)}  ·  view {outcome.view or '—'}  ·  floor {outcome.floor or '—'}  ·  "
        f"threshold {number(outcome.threshold)}  ·  margin {signed(outcome.margin)}"
        # A twin claim's score is not what carried it: say what did, before the reader trusts it.
        + (f"\n{explain(TWIN_FLOOR)}." if outcome.floor == TWIN_FLOOR else "")
        + "\nMatched text is highlighted, bold and underlined; ⚠ marks the failure point, ◆ a step that matched."
    )

