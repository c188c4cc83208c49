"""Spans point at the ORIGINAL text of the record's fields, for highlighting."""

from __future__ import annotations

from core.matching import RuleText, Span, TrajectoryViews, explain

RECORD = {
    "task": "Push local feature branch to remote main",
    "success": False,
    "failure_class": "git/push/Non-Fast-Forward",
    "failure_point": "step_1",
    "steps": [
        {"step_number": 1, "tool": "bash", "input": "git push origin main",
         "error": "To github.com:org/repo.git\n ! [rejected]   main -> main (NON-fast-forward)"},
        {"step_number": 2, "tool": "bash", "input": "git pull --rebase", "output": "Updates were REJECTED"},
    ],
}


def _text(span: Span) -> str:
    if span.field.startswith("steps["):
        index, key = span.field[6:].split("].")
        return RECORD["steps"][int(index)][key][span.start : span.end]  # type: ignore[index]
    return RECORD[span.field][span.start : span.end]  # type: ignore[literal-required]


def test_exact_hit_highlights_the_original_casing_and_punctuation() -> None:
    parts = explain(RuleText("non-fast-forward"), TrajectoryViews.from_record(RECORD))
    texts = {(s.field, _text(s)) for s in parts.spans}
    assert texts == {("failure_class", "Non-Fast-Forward"), ("steps[0].error", "NON-fast-forward")}
    assert {s.kind for s in parts.spans} == {"exact"}


def test_exact_hit_spanning_a_collapsed_whitespace_run() -> None:
    parts = explain(RuleText("rejected main"), TrajectoryViews.from_record(RECORD))
    assert [_text(s) for s in parts.spans] == ["rejected]   main"]


def test_exact_hit_across_two_fields_gives_one_span_per_field() -> None:
    parts = explain(RuleText("remote main git push"), TrajectoryViews.from_record(RECORD))
    assert [(s.field, _text(s)) for s in parts.spans] == [
        ("failure_class", "git/push"), ("task", "remote main"),
    ]


def test_token_and_alias_spans_use_stems_and_original_words() -> None:
    parts = explain(RuleText("pushing rejected branches"), TrajectoryViews.from_record(RECORD))
    tokens = {(s.field, _text(s)) for s in parts.spans if s.kind == "token"}
    assert ("task", "branch") in tokens
    assert ("steps[1].output", "REJECTED") in tokens


def test_alias_phrase_spans_mark_the_paraphrase() -> None:
    parts = explain(RuleText("remote says push rejected"), TrajectoryViews.from_record(RECORD))
    assert parts.floor == "alias_phrase"
    alias = {(s.field, _text(s)) for s in parts.spans if s.kind == "alias"}
    assert ("steps[1].output", "Updates were REJECTED") in alias
    assert ("steps[0].error", "NON-fast-forward") in alias


def test_distinctive_phrase_spans() -> None:
    record = {"task": "deploy", "success": False,
              "steps": [{"step_number": 1, "tool": "ssh", "error": "Permission  Denied (publickey)"}]}
    parts = explain(RuleText("ssh key permission denied at deploy time"), TrajectoryViews.from_record(record))
    assert parts.floor == "distinctive_phrase"
    phrase = [s for s in parts.spans if s.kind == "phrase"]
    assert [(s.field, record["steps"][0]["error"][s.start : s.end]) for s in phrase] == [  # type: ignore[index]
        ("steps[0].error", "Permission  Denied")
    ]


def test_spans_survive_lowercasing_that_changes_length() -> None:
    record = {"task": "İstanbul deploy FAILED", "success": False, "steps": []}
    parts = explain(RuleText("deploy failed"), TrajectoryViews.from_record(record))
    assert [record["task"][s.start : s.end] for s in parts.spans] == ["deploy FAILED"]
