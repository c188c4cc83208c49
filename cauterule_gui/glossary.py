"""Short human words for every code the window shows, and the full sentence behind each.

Replay, the promotion gates and the loop speak in codes (``blocked_by_near_miss``,
``alias_phrase``, ``no_failure_signal``). A table cell shows the short word (one or two
words, so it fits its column at 1280 px); the tooltip and the detail panes say the whole
thing. One module, so the same code always reads the same everywhere. A code this table does
not know is shown with its underscores as spaces, never hidden.
"""

from __future__ import annotations

# code: (short word for a cell, the full explanation for its tooltip)
GLOSSARY: dict[str, tuple[str, str]] = {
    # replay verdict reasons (core/replay/verdict.py)
    "pass": ("passes", "pass: the rule prevented failures and broke no success"),
    "no_signal": ("no signal", "no_signal: the rule prevented nothing and broke nothing, so replay cannot judge it"),
    "blocked_by_broken": ("breaks successes",
                          "blocked_by_broken: the rule matched successful trajectories (broken), so it fails"),
    "blocked_by_near_miss": ("near misses",
                             "blocked_by_near_miss: matches just under the bar (near misses) leave the verdict "
                             "inconclusive"),
    # causes of an inconclusive verdict
    "corpus_mismatch": ("corpus mismatch", "corpus_mismatch: the rule's domain is not in the corpus replayed"),
    "broad_trigger": ("broad trigger", "broad_trigger: the trigger matches too widely to tell"),
    "ambiguous_evidence": ("ambiguous", "ambiguous_evidence: the evidence points both ways"),
    "matcher_gap": ("matcher gap", "matcher_gap: the matcher could not compare the rule's words with the text"),
    # matcher floors (core/matching/score.py)
    "alias_phrase": ("alias phrase", "alias_phrase: a known alias phrase of the trigger occurs in the text"),
    "alias_token": ("alias word", "alias_token: a known alias word of the trigger occurs in the text"),
    "distinctive_phrase": ("distinct phrase", "distinctive_phrase: a phrase found in few trajectories occurs"),
    "semantic": ("meaning", "semantic: the embedding model found the meaning close enough"),
    "signature": ("signature", "signature: the failure's signature (tool and error) matches"),
    # not a matcher floor: the profile's twin rules (core/replay/twins.py)
    "twin_source": ("twin source", "twin_source: another rule with this trigger (or one this close in meaning) was "
                                   "written from this failure, so the rule claims it too; its own text did not "
                                   "reach the threshold here"),
    # the loop's extraction gate (core/loop)
    "no_failure_signal": ("no signal", "no_failure_signal: the trajectory shows no failure to learn from"),
    "nearmiss_recovery_succeeded": ("recovered", "nearmiss_recovery_succeeded: the agent recovered by itself"),
    "failure_without_signal": ("failure, no signal",
                               "failure_without_signal: it failed, but no step says why"),
    # phrases the window used to print whole in narrow cells
    "fires_at_injection": ("fires on", "Fires at injection on: the tasks whose text contains the trigger, "
                                       "where the rule would be injected into the prompt"),
    "comparators_flagged": ("flagged", "comparators flagged: comparators whose figures differ from the "
                                       "reference beyond tolerance"),
}


def word(code: str | None) -> str:
    """The short word for a cell ("—" for no code)."""
    if not code:
        return "—"
    known = GLOSSARY.get(code)
    return known[0] if known is not None else code.replace("_", " ")


def explain(code: str | None) -> str:
    """The full sentence for a tooltip (the code itself, so it can be searched in the docs)."""
    if not code:
        return ""
    known = GLOSSARY.get(code)
    return known[1] if known is not None else code


def longest(codes: tuple[str, ...], prefix: str = "") -> str:
    """The widest cell text of these codes (by characters), to size a column so none is elided."""
    return max((prefix + word(code) for code in codes), key=len)


VERDICT_REASONS = ("pass", "no_signal", "blocked_by_broken", "blocked_by_near_miss")
FLOORS = ("alias_phrase", "alias_token", "distinctive_phrase", "semantic", "signature", "twin_source")
GATE_REASONS = ("no_failure_signal", "nearmiss_recovery_succeeded", "failure_without_signal")
