"""The rule side of the matcher: the trigger text and what is derived from it once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from core.matching.tables import ALIASES, DISTINCTIVE_PHRASES, GENERIC_WORDS
from core.matching.text import bigrams, content_tokens, normalize, ordered_content_tokens

__all__ = ["PreparedRule", "RuleText", "condition_of", "prepare_rule"]


@dataclass(frozen=True)
class RuleText:
    """What the matcher reads of a rule: ``when.trigger``, ``when.context``,
    ``when.signature``."""

    trigger: str
    context: tuple[str, ...] = ()
    signature: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.context, tuple):  # lists from YAML: keep the rule hashable
            object.__setattr__(self, "context", tuple(self.context))


@dataclass(frozen=True)
class PreparedRule:
    rule: RuleText
    blank: bool  # trigger empty/blank, or normalises to nothing -> score 0
    norm_trigger: str
    raw_lower: str
    tokens: frozenset[str]  # C
    bigrams: frozenset[tuple[str, str]]  # B
    alias_keys: tuple[str, ...]  # keys found (raw substring) in the normalised trigger
    alias_tokens: frozenset[str]  # A
    alias_phrases: tuple[str, ...]  # normalised phrases of those keys, sorted
    distinctive: tuple[str, ...]  # normalised distinctive phrases found in raw_lower, sorted
    signature_norm: str | None  # normalised when.signature if it can hit, else None
    signature_tokens: frozenset[str]


@lru_cache(maxsize=4096)
def prepare_rule(rule: RuleText) -> PreparedRule:
    trigger = rule.trigger or ""
    norm = normalize(trigger)
    blank = not trigger.strip() or not norm
    keys = tuple(key for key in ALIASES if key in norm)
    alias_tokens: set[str] = set()
    phrases: set[str] = set()
    for key in keys:
        for phrase in ALIASES[key]:
            alias_tokens |= content_tokens(phrase)
            phrases.add(normalize(phrase))
    raw_lower = trigger.lower()
    distinctive = sorted({normalize(p) for p in DISTINCTIVE_PHRASES if p in raw_lower})

    sig_norm: str | None = None
    sig_tokens: frozenset[str] = frozenset()
    raw_sig = rule.signature
    if raw_sig and raw_sig.strip():
        candidate = normalize(raw_sig)
        tokens = content_tokens(candidate)
        # A generic signature ("error", "timeout") carries no signal and never hits.
        if candidate and tokens and not tokens <= GENERIC_WORDS:
            sig_norm, sig_tokens = candidate, tokens

    return PreparedRule(
        rule=rule,
        blank=blank,
        norm_trigger=norm,
        raw_lower=raw_lower,
        tokens=content_tokens(norm),
        bigrams=bigrams(ordered_content_tokens(norm)),
        alias_keys=keys,
        alias_tokens=frozenset(alias_tokens),
        alias_phrases=tuple(sorted(phrases)),
        distinctive=tuple(distinctive),
        signature_norm=sig_norm,
        signature_tokens=sig_tokens,
    )


def condition_of(trigger: str) -> str:
    """The rule's condition, normalised: its trigger before the first comma ("when git push
    fails with non-fast-forward" of "when git push fails with non-fast-forward, pull latest
    changes before pushing"), the whole trigger when there is no comma or nothing before it.
    The directive after the comma names the fix, which no failure's text contains."""
    head = (trigger or "").split(",", 1)[0]
    return normalize(head) or normalize(trigger or "")
