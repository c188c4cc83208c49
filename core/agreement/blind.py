"""What the judging screen may show before the reviewer commits: every string, built here.

Blind means blind. Before the commit nothing may reveal replay's bucket, the corpus role or
replay's verdict, so the screen shows only what this module returns:

* a neutral heading ("Item 3 of 10") — no session strata, corpus path, file name or id;
* the rule as one sentence ("when …, …"; a trigger that already starts with "when" is not
  prefixed again; a rule whose trigger and directive are the same sentence, as an
  ``expected_rule`` copied into both is, is shown once) — not its origin, which is a file
  path that can name a role;
* the questions and their choices;
* the trajectory: task, outcome, domain, failure class / point and steps. Its id, tags,
  ``expected_outcome`` (and rationale), ``expected_rule``, notes, source and quality label
  are left out. A label field (domain, failure class, failure point) that names a role or
  a role's folder anywhere in it (``nearmiss/coding``, ``adversarial/tool_output_injection``,
  ``git/misleading``, ``unsafe/delete``) is hidden whole: "Failure class: [hidden]", since
  half of it ("[hidden]/tool_output_injection") still names the folder. In the free text,
  every token (a run of non-space characters) holding a role or bucket word (``nearmiss``,
  ``NM-``, ``should_reject``, ``counterexample``, ``prevented`` …) is masked whole, so an id
  derived from a role ("NM-GIT-003", "nearmiss-coding-001") is hidden with it. No mask ever
  crosses a line break: the masked text has exactly the lines of the record.

After the commit, ``Reveal.revealed`` carries what was hidden (ids, corpus, file,
``expected_outcome``, ``expected_rule``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from core.domain.agreement import CANT_TELL, BlindItem

MASK = "[hidden]"
# Words that name a corpus role, an expected outcome or a replay bucket. Separators are a space,
# a tab, "_" or "-", never a line break (a mask across lines once swallowed the Outcome line).
_SEP = r"[ \t_-]"
_ROLE_PATTERNS = (
    rf"near{_SEP}?miss(?:es)?", r"\bNM-\w*", r"should_\w+", rf"counter{_SEP}?examples?", r"golden", r"adversarial",
    r"staleness", r"prevented", r"broken", r"missed", rf"no{_SEP}effect", rf"false{_SEP}?accept\w*",
    rf"expected{_SEP}outcome", rf"expected{_SEP}rule",
)
ROLE_WORDS = re.compile("|".join(f"(?:{p})" for p in _ROLE_PATTERNS), re.IGNORECASE)
# A whole token (no space, no line break) holding a role word: "[hidden]-git-001" would still
# say which folder the id came from.
_ROLE_TOKENS = re.compile(r"[^\s]*(?:" + "|".join(f"(?:{p})" for p in _ROLE_PATTERNS) + r")[^\s]*", re.IGNORECASE)
# The folders of a corpus that name a role (the shared corpus's adversarial/*, field-test
# curated/*): a label field naming one tells the reviewer where the record came from.
_FOLDER_PATTERNS = (
    r"compounding", r"multi[ \t_-]?turn", r"injection", r"injecagent", r"unsafe", r"misleading", r"poisoning",
    r"contradiction", r"noisy", r"corrections?", r"paraphrase", r"reference[ \t_-]expansion",
)
FIELD_ROLE_WORDS = re.compile("|".join(f"(?:{p})" for p in (*_ROLE_PATTERNS, *_FOLDER_PATTERNS)), re.IGNORECASE)
LABEL_FIELDS = (("Domain", "domain"), ("Failure class", "failure_class"), ("Failure point", "failure_point"))

QUESTIONS = {
    "verdict": "Judged on its evidence, should this rule pass, fail, or is it inconclusive?",
    "firing": "What does this rule do on this trajectory?",
    "evidence": "What does this rule do on this trajectory? (the question asked before firing and scope were split)",
}
SCOPE_QUESTION = "This trajectory failed. Is this a failure this rule is meant for?"
ANSWER_TEXT = {
    "pass": "pass", "fail": "fail", "inconclusive": "inconclusive",
    "prevents": "prevents (fires on this failure and would prevent it)",
    "breaks": "breaks (fires on this success)",
    "near_miss": "near-miss (fires on a run that recovered)",
    "does_not_fire": "does not fire",
    "prevented": "prevented", "broken": "broken", "missed": "missed", "no_effect": "no effect",
    "in_scope": "in scope", "out_of_scope": "out of scope", CANT_TELL: "can't tell",
}


def mask(text: str) -> str:
    """Mask every token holding a role or bucket word in free text, line by line."""
    return _ROLE_TOKENS.sub(MASK, text)


def label_field(label: str, value: Any) -> str:
    """``"Failure class: python/import"``; hidden whole when any part of it names a role or a role's folder."""
    text = " ".join(str(value).split())
    return f"{label}: {MASK if FIELD_ROLE_WORDS.search(text) else text}"


def _same_sentence(trigger: str, directive: str) -> bool:
    def norm(text: str) -> str:
        return " ".join(text.lower().split()).rstrip(" .;")

    return norm(trigger) == norm(directive)


def rule_sentence(trigger: str, directive: str) -> str:
    """"when <trigger>, <directive>" without a doubled "when" (``when when docker build``); a
    rule whose trigger and directive are one sentence (an ``expected_rule``) is that sentence, once."""
    trig = " ".join(trigger.split())
    if _same_sentence(trigger, directive):
        return trig
    if not re.match(r"(?i)when\b", trig):
        trig = f"when {trig}"
    return f"{trig}, {' '.join(directive.split())}"


def answer_text(answer: str) -> str:
    return ANSWER_TEXT.get(answer, answer.replace("_", " "))


@dataclass(frozen=True)
class BlindView:
    heading: str
    rule: str
    question: str
    choices: tuple[tuple[str, str], ...]  # (answer, label)
    scope_question: str | None
    scope_choices: tuple[tuple[str, str], ...]
    trajectory: str | None  # evidence items: the redacted record
    evidence_labels: tuple[str, ...]  # verdict items: "Trajectory 1" … for each firing trajectory

    def strings(self) -> list[str]:
        """Every string the screen shows before the commit (what the blind-leak test checks)."""
        shown = [self.heading, self.rule, self.question, *(label for _a, label in self.choices),
                 *(label for _a, label in self.scope_choices), *self.evidence_labels]
        if self.scope_question:
            shown.append(self.scope_question)
        if self.trajectory:
            shown.append(self.trajectory)
        return shown


def _step_lines(step: Any, number: int) -> list[str]:
    if not isinstance(step, dict):
        return [f"Step {number}: {step}"]
    head = f"Step {step.get('step_number', number)}" + (f" · {step['tool']}" if step.get("tool") else "")
    lines = [head]
    for field in ("input", "output", "error", "state"):
        value = step.get(field)
        if value not in (None, ""):
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            lines.append(f"  {field}: {text}")
    return lines


def trajectory_text(record: dict[str, Any], success: bool) -> str:
    """The record as the reviewer may see it blind (see the module docstring)."""
    lines = [mask(f"Task: {record.get('task', '')}"), f"Outcome: {'succeeded' if success else 'failed'}"]
    lines += [label_field(label, record[field]) for label, field in LABEL_FIELDS if record.get(field)]
    steps = record.get("steps") or record.get("messages") or []
    if isinstance(steps, list):
        for number, step in enumerate(steps, start=1):
            lines.extend(mask(str(line)) for line in _step_lines(step, number))
    return "\n".join(lines)


def blind_view(item: BlindItem, record: dict[str, Any] | None, success: bool | None) -> BlindView:
    """The judging screen's strings for one item (``record``: the evidence trajectory's JSON)."""
    size = f" of {item.session_size}" if item.session_size else ""
    evidence = tuple(f"Trajectory {n}" for n in range(1, len(item.evidence_pks) + 1))
    text = None if record is None else trajectory_text(record, bool(success))
    return BlindView(
        heading=f"Item {item.ordinal}{size}",
        rule=mask(rule_sentence(item.trigger, item.directive)),
        question=QUESTIONS.get(item.kind, ""),
        choices=tuple((a, answer_text(a)) for a in item.choices),
        scope_question=SCOPE_QUESTION if item.scope_choices else None,
        scope_choices=tuple((a, answer_text(a)) for a in item.scope_choices),
        trajectory=text,
        evidence_labels=evidence,
    )
