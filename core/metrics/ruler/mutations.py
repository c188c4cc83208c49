"""Mutations: benign perturbations a comparator must hold on, and harmful ones it must catch.

Text mutations act on the predicted half of a row (a trigger or a directive string);
record mutations act on the trajectory a trigger is matched against. Harmful mutations
that need another row (a different error class, another domain) draw it from the store's
own rows, so the canaries are built from the data being measured.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.metrics.ruler.harness import Mutation, MutationContext, Row, with_pred, with_ref
from core.metrics.ruler.model import BENIGN, HARMFUL

# A tool named in a rule, and a different tool that does a similar job: a rule about one
# must not be credited on the other (seed 004: "a different tool" is a fixed verdict).
TOOL_SWAPS: Mapping[str, str] = {
    "git": "svn", "docker": "podman", "pip": "conda", "pytest": "jest", "kubectl": "nomad",
    "terraform": "pulumi", "npm": "cargo", "python": "ruby", "selenium": "cypress", "helm": "kustomize",
    "api": "ftp", "chmod": "chown", "apt-get": "apk", "dockerfile": "gemfile",
}
_TOOL_RE = re.compile(r"(?<![a-z0-9])(" + "|".join(re.escape(t) for t in sorted(TOOL_SWAPS, key=len, reverse=True))
                      + r")(?![a-z0-9])", re.IGNORECASE)
_NEGATIONS = ("do not ", "don't ", "never ")
# Words of a failure-class label that say nothing about which failure it is.
_GENERIC_CLASS_WORDS = frozenset({"error", "errors", "fail", "fails", "failed", "failure", "not", "found", "the", "a"})


def class_words(failure_class: str | None) -> frozenset[str]:
    """The label's words after its first (domain) segment: ``git/push/non-fast-forward`` ->
    {push, non, fast, forward}."""
    if not failure_class:
        return frozenset()
    rest = failure_class.lower().split("/")[1:] or failure_class.lower().split("/")
    words = {w for part in rest for w in re.split(r"[^a-z0-9]+", part) if w}
    return frozenset(words - _GENERIC_CLASS_WORDS)


def unrelated(a: Row, b: Row) -> bool:
    """Two rows are a different failure when their rules differ, their coarse classes differ
    AND their failure-class labels share no specific word (``shell/permission`` and
    ``shell/permission-denied`` are the same failure; the corpus's labels are the authority)."""
    if a.meta.get("rule") == b.meta.get("rule") or a.meta.get("klass") == b.meta.get("klass"):
        return False
    wa, wb = class_words(a.meta.get("failure_class")), class_words(b.meta.get("failure_class"))
    return not (wa & wb)


# -- text helpers ---------------------------------------------------------------------------
def upper(text: str) -> str:
    return text.upper()


def punctuate(text: str) -> str:
    """Hyphens to spaces, a comma after the first word, a full stop at the end."""
    body = text.replace("-", " ").strip()
    head, _, tail = body.partition(" ")
    return (f"{head}, {tail}" if tail else head) + "."


def spaces(text: str) -> str:
    return "  " + "\t ".join(text.split()) + " \n"


def swap_tool(text: str) -> str | None:
    """Every tool name replaced by another tool's; None when the text names no tool."""
    if not _TOOL_RE.search(text):
        return None

    def repl(m: re.Match[str]) -> str:
        new = TOOL_SWAPS[m.group(1).lower()]
        return new.upper() if m.group(1).isupper() else new

    return _TOOL_RE.sub(repl, text)


def negate(directive: str) -> str | None:
    """The opposite directive: "pull before pushing" -> "do not pull before pushing"."""
    text = directive.strip()
    if not text:
        return None
    low = text.lower()
    for neg in _NEGATIONS:
        if low.startswith(neg):
            return text[len(neg):]
    return "do not " + text[0].lower() + text[1:]


# -- text mutations -------------------------------------------------------------------------
def _text_mut(name: str, kind: str, description: str, fn: Callable[[str], str | None]) -> Mutation:
    def apply(row: Row, ctx: MutationContext) -> Row | None:
        new = fn(row.pred) if isinstance(row.pred, str) and row.pred.strip() else None
        return None if new is None or new == row.pred else with_pred(row, new)

    return Mutation(name, kind, description, apply)


def _other_row(name: str, description: str, same_domain: bool) -> Mutation:
    """Replace the prediction with another row's, from a different group (error class):
    same domain (the hard case: shares the tool's words) or another domain."""

    def apply(row: Row, ctx: MutationContext) -> Row | None:
        domain = row.meta.get("domain")
        pool = [
            r for r in ctx.rows
            if unrelated(r, row) and r.pred != row.pred
            and ((r.meta.get("domain") == domain) if same_domain else (r.meta.get("domain") != domain))
        ]
        if not pool or (same_domain and domain is None):
            return None
        other = ctx.rng.choice(pool)
        return with_pred(row, other.pred, replaced_by=other.meta.get("id"))

    return Mutation(name, HARMFUL, description, apply)


def paraphrase_mutation(paraphrases: Callable[[Row], Sequence[str]]) -> Mutation:
    def apply(row: Row, ctx: MutationContext) -> Row | None:
        options = [p for p in paraphrases(row) if p.strip() and p != row.pred]
        return with_pred(row, ctx.rng.choice(options)) if options else None

    return Mutation("paraphrase", BENIGN, "a real paraphrase of the same rule (store or hand-written)", apply)


def benign_text() -> list[Mutation]:
    return [
        _text_mut("case", BENIGN, "upper-cased", upper),
        _text_mut("punctuation", BENIGN, "hyphens to spaces, a comma, a full stop", punctuate),
        _text_mut("whitespace", BENIGN, "doubled spaces, tabs, a trailing newline", spaces),
    ]


def trigger_mutations(paraphrases: Callable[[Row], Sequence[str]]) -> list[Mutation]:
    return [
        *benign_text(),
        paraphrase_mutation(paraphrases),
        _other_row("other_error_class", "the trigger of a different error class in the same domain", True),
        _other_row("other_domain", "another domain's trigger", False),
        _text_mut("tool_swap", HARMFUL, "the tool named in the trigger replaced by another tool", swap_tool),
    ]


def directive_mutations(paraphrases: Callable[[Row], Sequence[str]]) -> list[Mutation]:
    return [
        *benign_text(),
        paraphrase_mutation(paraphrases),
        _text_mut("opposite_directive", HARMFUL, 'the directive negated ("do not pull before pushing")', negate),
        _other_row("other_directive", "the directive of a different error class", False),
    ]


# -- trajectory-record mutations (for the replay matcher) -----------------------------------
_TEXT_FIELDS = ("error", "output", "input")


def map_record_text(record: dict[str, Any], fn: Callable[[str], str], labels: bool = False) -> dict[str, Any]:
    """A copy of ``record`` with ``fn`` applied to the task and every step's text (and, with
    ``labels``, to ``failure_class`` and ``domain`` too)."""
    out = copy.deepcopy(record)
    if isinstance(out.get("task"), str):
        out["task"] = fn(out["task"])
    for step in out.get("steps") or []:
        if isinstance(step, dict):
            for key in _TEXT_FIELDS:
                if isinstance(step.get(key), str) and step[key]:
                    step[key] = fn(step[key])
    if labels:
        for key in ("failure_class", "domain"):
            if isinstance(out.get(key), str) and out[key]:
                out[key] = fn(out[key])
    return out


def _record_text_mut(name: str, kind: str, description: str, fn: Callable[[str], str], labels: bool = False) -> Mutation:
    def apply(row: Row, ctx: MutationContext) -> Row | None:
        new = map_record_text(row.ref, fn, labels)
        return None if new == row.ref else with_ref(row, new)

    return Mutation(name, kind, description, apply)


def _record_tool_swap() -> Mutation:
    def apply(row: Row, ctx: MutationContext) -> Row | None:
        if swap_tool(json_text(row.ref)) is None:
            return None
        new = map_record_text(row.ref, lambda t: swap_tool(t) or t, labels=True)
        return None if new == row.ref else with_ref(row, new)

    return Mutation("tool_swap", HARMFUL, "every tool named in the trajectory replaced by another tool", apply)


def json_text(record: dict[str, Any]) -> str:
    parts = [str(record.get("task") or ""), str(record.get("failure_class") or ""), str(record.get("domain") or "")]
    for step in record.get("steps") or []:
        if isinstance(step, dict):
            parts.extend(str(step.get(k) or "") for k in _TEXT_FIELDS)
    return " ".join(parts)


def _step_reorder() -> Mutation:
    def apply(row: Row, ctx: MutationContext) -> Row | None:
        steps = row.ref.get("steps")
        if not isinstance(steps, list) or sum(isinstance(s, dict) for s in steps) < 2:
            return None
        out = copy.deepcopy(row.ref)
        out["steps"] = list(reversed(out["steps"]))
        return with_ref(row, out)

    return Mutation("step_reorder", BENIGN, "the steps listed in reverse order (the failure is the same failure)", apply)


def _other_trajectory(name: str, description: str, same_domain: bool) -> Mutation:
    def apply(row: Row, ctx: MutationContext) -> Row | None:
        domain = row.meta.get("domain")
        pool = [
            r for r in ctx.rows
            if unrelated(r, row)
            and ((r.meta.get("domain") == domain) if same_domain else (r.meta.get("domain") != domain))
        ]
        if not pool or (same_domain and domain is None):
            return None
        other = ctx.rng.choice(pool)
        return with_ref(row, other.ref, replaced_by=other.meta.get("id"))

    return Mutation(name, HARMFUL, description, apply)


def record_paraphrase(paraphrases: Callable[[Row], Sequence[dict[str, Any]]]) -> Mutation:
    def apply(row: Row, ctx: MutationContext) -> Row | None:
        options = [p for p in paraphrases(row) if p.get("trajectory_id") != row.ref.get("trajectory_id")]
        return with_ref(row, ctx.rng.choice(options)) if options else None

    return Mutation("paraphrase", BENIGN, "a paraphrase-diversity trajectory of the same failure class", apply)


def record_paraphrase_unlabelled(paraphrases: Callable[[Row], Sequence[dict[str, Any]]]) -> Mutation:
    def apply(row: Row, ctx: MutationContext) -> Row | None:
        options = [p for p in paraphrases(row) if p.get("trajectory_id") != row.ref.get("trajectory_id")]
        if not options:
            return None
        record = copy.deepcopy(ctx.rng.choice(options))
        record.pop("failure_class", None)
        return with_ref(row, record)

    return Mutation("paraphrase_unlabelled", BENIGN, "a paraphrase-diversity trajectory of the same failure, "
                    "without its failure_class label (the words alone)", apply)


def matcher_mutations(paraphrases: Callable[[Row], Sequence[dict[str, Any]]]) -> list[Mutation]:
    return [
        _record_text_mut("case", BENIGN, "the trajectory's task and step text upper-cased", upper),
        _record_text_mut("punctuation", BENIGN, "hyphens to spaces, commas and full stops in the text", punctuate),
        _record_text_mut("whitespace", BENIGN, "doubled spaces, tabs and newlines in the text", spaces),
        _step_reorder(),
        record_paraphrase(paraphrases),
        record_paraphrase_unlabelled(paraphrases),
        _other_trajectory("other_error_class", "same trigger against a failure of a different error class, same domain",
                          True),
        _other_trajectory("other_domain", "same trigger against another domain's failure", False),
        _record_tool_swap(),
    ]
