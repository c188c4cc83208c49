"""read_rule_bytes: classification, validation like the 0.3.1 models, safe loading, line numbers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from core.corpus.rules import read_rule_bytes, read_rule_file

STANDING = """\
id: R-001
when:
  trigger: git push fails with non-fast-forward
  context: [git]
  signature: non-fast-forward
do:
  directive: pull --rebase before pushing
  because: remote has new commits
confidence: 0.9
provenance:
  source_trajectory: G-001
  extracted_by: benchmark
  extract_timestamp: '2026-09-07T20:50:09Z'
  extraction_pass: 1
status: active
promoted_at: '2026-09-07T20:50:09Z'
hit_count: 0
tags: [git]
"""

CANDIDATE = """\
when:
  trigger: when docker build fails with missing dependency
do:
  directive: install the missing dependency before building
confidence: 0.8
extraction_pass: 1
"""


def read(text: str, file: str = "R-001.yaml"):  # noqa: ANN201
    return read_rule_bytes(textwrap.dedent(text).encode("utf-8"), file)


def test_standing_rule_fields() -> None:
    result = read(STANDING)
    assert (result.kind, result.issues) == ("standing", [])
    rule = result.rule
    assert rule is not None and rule.kind == "standing"
    assert (rule.rule_id, rule.status, rule.source_trajectory, rule.confidence) == ("R-001", "active", "G-001", 0.9)
    assert (rule.trigger, rule.context, rule.signature) == ("git push fails with non-fast-forward", ("git",), "non-fast-forward")
    assert (rule.directive, rule.because) == ("pull --rebase before pushing", "remote has new commits")
    assert list(rule.data) == ["id", "when", "do", "confidence", "provenance", "status", "promoted_at", "hit_count", "tags"]
    assert result.raw_text == STANDING


def test_candidate_rule_fields() -> None:
    result = read(CANDIDATE, "candidate_docker_build.yaml")
    assert (result.kind, result.issues) == ("candidate", [])
    rule = result.rule
    assert rule is not None and (rule.rule_id, rule.status, rule.source_trajectory) == (None, None, None)
    assert (rule.trigger, rule.directive, rule.confidence) == (
        "when docker build fails with missing dependency",
        "install the missing dependency before building",
        0.8,
    )


def test_flattened_candidate_with_plain_string_when_and_do() -> None:
    result = read("when: git push is rejected\ndo: pull first\nconfidence: 0.7\nextraction_pass: 2\n", "c.yaml")
    assert (result.kind, result.issues) == ("candidate", [])
    assert result.rule is not None and (result.rule.trigger, result.rule.directive) == ("git push is rejected", "pull first")
    assert any("flattened" in n.reason for n in result.rule.notes)


def test_missing_status_is_an_issue_and_no_rule_is_returned() -> None:
    result = read(STANDING.replace("status: active\n", ""))
    assert result.kind == "standing" and result.rule is None
    [issue] = result.issues
    assert (issue.file, issue.line, issue.field) == ("R-001.yaml", None, "status")


def test_bad_nested_value_reports_its_yaml_line() -> None:
    result = read(STANDING.replace("confidence: 0.9", "confidence: 1.5").replace("extraction_pass: 1", "extraction_pass: 0"))
    assert {(i.field, i.line) for i in result.issues} == {("confidence", 9), ("provenance.extraction_pass", 14)}
    assert all("expected" in i.reason for i in result.issues)


def test_missing_nested_key_points_at_its_parent() -> None:
    result = read(STANDING.replace("  directive: pull --rebase before pushing\n", ""))
    [issue] = result.issues
    assert (issue.field, issue.line) == ("do.directive", 6)


def test_scalar_context_is_refused() -> None:
    result = read(STANDING.replace("context: [git]", "context: git"))
    assert [(i.field, i.line) for i in result.issues] == [("when.context", 4)]


def test_unquoted_timestamp_is_refused_like_the_reference() -> None:
    result = read(STANDING.replace("promoted_at: '2026-09-07T20:50:09Z'", "promoted_at: 2026-09-07T20:50:09Z"))
    [issue] = result.issues
    assert issue.field == "promoted_at" and "quote it" in issue.reason


def test_yaml_syntax_error_is_unreadable_with_a_line() -> None:
    result = read("id: R-1\nwhen: [unclosed\nstatus: active\n")
    assert result.kind == "unreadable" and result.rule is None
    assert result.issues[0].line is not None and "not valid YAML" in result.issues[0].reason


def test_invalid_utf8_is_unreadable_with_a_line() -> None:
    result = read_rule_bytes(b"id: R-1\nwhen:\n  trigger: \xff\n", "R-1.yaml")
    assert result.kind == "unreadable" and result.issues[0].line == 3


def test_python_tags_are_not_constructed() -> None:
    result = read("id: !!python/object/apply:os.system ['echo pwned']\nstatus: active\n")
    assert result.kind == "unreadable" and result.rule is None


@pytest.mark.parametrize(
    ("text", "file"),
    [
        ("curated:\n  golden: {count: 10, path: golden}\nversion: '1.0'\n", "catalog.yaml"),
        ("rules:\n- {id: R-001, status: active}\n", "index.yaml"),
        ("R-001: {status: active, trigger: x}\n", "index.yml"),
        ("- {id: R-001, trigger: x, directive: y, status: active}\n", "old-index.yaml"),
        ("name: my-pack\nversion: 1\n", "manifest.yaml"),
    ],
)
def test_catalogs_and_indexes_are_noted_not_imported(text: str, file: str) -> None:
    result = read(text, file)
    assert (result.kind, result.rule, result.issues) == ("catalog", None, [])
    assert result.data is not None


@pytest.mark.parametrize("text", ["", "just a string\n", "a: 1\nb: [2]\n", "- 1\n- 2\n"])
def test_other_yaml_is_neither_rule_nor_issue(text: str) -> None:
    result = read(text, "config.yaml")
    assert (result.kind, result.rule, result.issues) == ("other", None, [])


def test_missing_file_is_an_issue(tmp_path: Path) -> None:
    result = read_rule_file(tmp_path / "R-9.yaml", "R-9.yaml")
    assert result.kind == "unreadable" and "could not read" in result.issues[0].reason


STANDING_VARIANTS = [
    STANDING,
    STANDING.replace("status: active", "status: pending"),
    STANDING.replace("status: active", "status: null"),
    STANDING.replace("id: R-001", "id: 7"),
    STANDING.replace("id: R-001", "id: ''"),
    STANDING.replace("  trigger: git push fails with non-fast-forward\n", ""),
    STANDING.replace("trigger: git push fails with non-fast-forward", "trigger: yes"),
    STANDING.replace("  signature: non-fast-forward\n", "  signature: ''\n"),
    STANDING.replace("  signature: non-fast-forward\n", "  signature: null\n"),
    STANDING.replace("context: [git]", "context: git"),
    STANDING.replace("context: [git]", "context: null"),
    STANDING.replace("context: [git]", "context: [git, '']"),
    STANDING.replace("because: remote has new commits", "because: '  '"),
    STANDING.replace("because: remote has new commits", "because: 3"),
    STANDING.replace("confidence: 0.9", "confidence: '0.9'"),
    STANDING.replace("confidence: 0.9", "confidence: high"),
    STANDING.replace("confidence: 0.9", "confidence: .nan"),
    STANDING.replace("confidence: 0.9\n", ""),
    STANDING.replace("  extraction_pass: 1\n", "  extraction_pass: '2'\n"),
    STANDING.replace("  extracted_by: benchmark\n", ""),
    STANDING.replace("  extract_timestamp: '2026-09-07T20:50:09Z'", "  extract_timestamp: 2026-09-07T20:50:09Z"),
    STANDING.replace("hit_count: 0", "hit_count: -1"),
    STANDING.replace("hit_count: 0", "hit_count: null"),
    STANDING + "last_outcome: prevented\noutcome_trend: [1, 0, -1]\nspecificity: 0.4\n",
    STANDING + "last_outcome: maybe\n",
    STANDING + "outcome_trend: [2]\n",
    STANDING + "outcome_trend: '101'\n",
    STANDING + "outcome_trend: null\n",
    STANDING + "specificity: 2\n",
    STANDING + "specificity: null\n",
    STANDING + "specificity_inputs: [1, 2]\n",
    STANDING + "specificity_inputs: {a: 1}\n",
    STANDING + "prevented_count: 2.5\n",
    STANDING + "tags2: x\n",
    STANDING.replace("tags: [git]", "tags: git"),
    STANDING.replace("  extraction_pass: 1\n", "  extraction_pass: 1\n  replay_evidence: {precision: 2, recall: 0.5}\n"),
    STANDING.replace("  extraction_pass: 1\n", "  extraction_pass: 1\n  replay_evidence: {failures_prevented: null}\n"),
    STANDING.replace("  extraction_pass: 1\n", "  extraction_pass: 1\n  replay_evidence: 5\n"),
    "id: R-9\nstatus: active\n",
    "id: R-9\nwhen: null\ndo: {directive: x}\nstatus: active\n",
]

CANDIDATE_VARIANTS = [
    CANDIDATE,
    CANDIDATE.replace("confidence: 0.8", "confidence: 1.2"),
    CANDIDATE.replace("confidence: 0.8\n", ""),
    CANDIDATE.replace("extraction_pass: 1", "extraction_pass: 0"),
    CANDIDATE + "reasoning: ''\n",
    CANDIDATE + "reasoning: because\ntemplate: t\n",
    CANDIDATE + "template: 0\n",
    CANDIDATE.replace("  directive: install the missing dependency before building\n", "  because: x\n"),
    "when: {trigger: x, context: [a]}\ndo: {directive: y}\n",
    "when: {trigger: x}\ndo: []\n",
]


@pytest.mark.parametrize("text", STANDING_VARIANTS)
def test_standing_acceptance_matches_the_reference_model(text: str) -> None:
    from cauterule.serialization.rule_yaml import load_rule

    try:
        load_rule(text)
        reference_ok = True
    except Exception:  # noqa: BLE001
        reference_ok = False
    result = read(text)
    assert result.kind == "standing"
    assert (result.issues == []) == reference_ok, result.issues
    assert (result.rule is not None) == reference_ok


@pytest.mark.parametrize("text", CANDIDATE_VARIANTS)
def test_candidate_acceptance_matches_the_reference_model(text: str) -> None:
    import yaml
    from cauterule.models.candidate import CandidateRule

    try:
        CandidateRule.from_dict(yaml.safe_load(text))
        reference_ok = True
    except Exception:  # noqa: BLE001
        reference_ok = False
    result = read(text, "candidate.yaml")
    assert result.kind == "candidate"
    assert (result.issues == []) == reference_ok, result.issues
