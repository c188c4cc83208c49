"""Matcher profiles: every constant and choice of the scorer, named.

``REFERENCE_0_3_1`` reproduces ``cauterule.replay.matcher`` 0.3.1 exactly (lexical when
``semantic`` is False, the #689/#721/#722/J11 semantic blend when True).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

__all__ = ["AliasPhraseMode", "MatcherProfile", "REFERENCE_0_3_1", "REFERENCE_0_3_1_SEMANTIC",
           "SemanticTarget"]


class SemanticTarget(str, Enum):
    """Which texts are embedded for the semantic blend: the rule side and the trajectory side.

    The first two embed the whole normalised trigger. The ``CONDITION_*`` and ``*_VS_ERRORS``
    targets (issue 26) change what is embedded so that a rule meets a trajectory on the failure
    itself rather than on the ``failure_class`` label's restatement of it (docs/lab.md): the
    rule's *condition* is its trigger before the first comma ("when git push fails with
    non-fast-forward" of "when git push fails with non-fast-forward, pull before pushing"; the
    whole trigger when it has no comma), without the directive that no failure text contains;
    the trajectory's *errors* E are its steps' error texts only, without the failure point and
    the class label (S, or H when S is empty, for a trajectory without an error text).
    """

    #: 0.3.1: S (or H when S is empty), then the max with S⁻ when S⁻ is non-empty and != S.
    SIGNATURE_THEN_CLASSFREE = "signature_then_classfree"
    #: 0.3.0: the whole haystack H only.
    HAYSTACK = "haystack"
    #: The rule's condition against what 0.3.1 embeds (S or H, max with S⁻).
    CONDITION_VS_SIGNATURE = "condition_vs_signature"
    #: The rule's condition against the steps' error texts E (S or H when there is none).
    CONDITION_VS_ERRORS = "condition_vs_errors"
    #: The whole trigger against E (S or H when there is none).
    TRIGGER_VS_ERRORS = "trigger_vs_errors"
    #: The rule's condition against the whole haystack H (0.3.0's trajectory side).
    CONDITION_VS_HAYSTACK = "condition_vs_haystack"

    @property
    def embeds_condition(self) -> bool:
        return self in (SemanticTarget.CONDITION_VS_SIGNATURE, SemanticTarget.CONDITION_VS_ERRORS,
                        SemanticTarget.CONDITION_VS_HAYSTACK)

    @property
    def embeds_haystack(self) -> bool:
        return self in (SemanticTarget.HAYSTACK, SemanticTarget.CONDITION_VS_HAYSTACK)

    @property
    def embeds_errors(self) -> bool:
        return self in (SemanticTarget.CONDITION_VS_ERRORS, SemanticTarget.TRIGGER_VS_ERRORS)


class AliasPhraseMode(str, Enum):
    #: 0.3.1: an alias phrase hit SETS the score to the floor (can lower a higher blend).
    SET = "set"
    #: Raise to the floor only (max), never lower.
    RAISE = "raise"


@dataclass(frozen=True)
class MatcherProfile:
    name: str
    semantic: bool = False
    # Blend weights. The semantic weights apply only when the cosine is > 0 (0.3.1).
    lexical_token_weight: float = 0.6
    lexical_bigram_weight: float = 0.4
    semantic_token_weight: float = 0.5
    semantic_bigram_weight: float = 0.3
    semantic_embed_weight: float = 0.2
    semantic_floor: float = 0.62  # cosine at/above which ...
    semantic_floor_score: float = 0.70  # ... the score is raised to this
    semantic_target: SemanticTarget = SemanticTarget.SIGNATURE_THEN_CLASSFREE
    # Alias floors.
    alias_weight: float = 0.5  # alias tokens count at this weight in token F1
    alias_phrase_score: float = 0.70
    alias_phrase_mode: AliasPhraseMode = AliasPhraseMode.SET
    alias_token_floor: float = 0.60  # an alias token hit raises a lower score to this
    # Distinctive-phrase floor: only when the score is below it and the normalised
    # trigger has at least `distinctive_min_chars` characters.
    distinctive_phrase_score: float = 0.70
    distinctive_min_chars: int = 8
    # Structured `when.signature` hit (#725).
    signature_hit_score: float = 0.70
    exact_score: float = 1.0
    view_denominator_cap: int = 4  # token-F1 view size capped at cap x trigger size
    round_digits: int = 4
    include_input: bool = True  # step input in the haystack

    def with_semantic(self, semantic: bool = True) -> MatcherProfile:
        return replace(self, semantic=semantic)


REFERENCE_0_3_1 = MatcherProfile(name="reference-0.3.1")
REFERENCE_0_3_1_SEMANTIC = MatcherProfile(name="reference-0.3.1-semantic", semantic=True)
