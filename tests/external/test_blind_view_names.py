"""Issue 24 items 10-11: the blind view on the shared corpus's real records and names.

A rule copied from ``expected_rule`` (trigger = directive) is shown once; a label field that
names a role or a role's folder is hidden whole; a masked token takes its whole id with it;
no mask crosses a line break."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.agreement.blind import MASK, rule_sentence, trajectory_text

pytestmark = [pytest.mark.external]

# The shared corpus's folders whose names say what a record is for (named here, independently
# of core.agreement.blind's own lists, so the test can catch what the module misses).
ROLE_FOLDERS = ("adversarial", "compounding_multiturn", "tool_output_injection", "unsafe", "misleading", "poisoning",
                "contradiction", "injection", "nearmiss", "counterexample", "golden", "staleness")


def _records(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                yield path, record


def _unmasked_lines(record: dict[str, Any]) -> int:
    """How many lines the record's blind text has when nothing is masked."""
    steps = record.get("steps") or record.get("messages") or []
    count = 2 + sum(1 for f in ("domain", "failure_class", "failure_point") if record.get(f))
    count += str(record.get("task", "")).count("\n")
    if isinstance(steps, list):
        for step in steps:
            count += 1
            if isinstance(step, dict):
                for field in ("input", "output", "error", "state"):
                    value = step.get(field)
                    if value not in (None, ""):
                        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                        count += 1 + shown.count("\n")
            else:
                count += str(step).count("\n")
    return count


def test_no_label_field_names_a_role_folder_even_in_part(shared_corpus: Path) -> None:
    leaks = []
    for path, record in _records(shared_corpus):
        text = trajectory_text(record, bool(record.get("success")))
        for line in text.splitlines():
            if line.startswith(("Domain:", "Failure class:", "Failure point:")):
                value = line.split(":", 1)[1].strip()
                if any(folder in value.lower() for folder in ROLE_FOLDERS) or (MASK in value and value != MASK):
                    leaks.append(f"{path.name}: {line}")
    assert not leaks, leaks[:10]


def test_the_injection_and_nearmiss_failure_classes_are_hidden_whole(shared_corpus: Path) -> None:
    classes = {r["failure_class"]: trajectory_text(r, False) for _p, r in _records(shared_corpus)
               if isinstance(r.get("failure_class"), str)}
    for name in ("adversarial/tool_output_injection", "git/misleading", "nearmiss/coding"):
        assert name in classes, name  # the real names this test is about
        assert "Failure class: [hidden]\n" in classes[name] + "\n"


def test_a_masked_token_takes_its_whole_id_with_it(shared_corpus: Path) -> None:
    partial = []
    for path, record in _records(shared_corpus):
        text = trajectory_text(record, bool(record.get("success")))
        partial += [f"{path.name}: {m.group(0)}" for m in re.finditer(r"\S*\[hidden\]\S*", text) if m.group(0) != MASK]
    assert not partial, partial[:10]


def test_no_mask_crosses_a_line_break(shared_corpus: Path) -> None:
    lost = []
    for path, record in _records(shared_corpus):
        text = trajectory_text(record, bool(record.get("success")))
        if text.count("\n") + 1 != _unmasked_lines(record) or not re.search(r"^Outcome: (succeeded|failed)$", text, re.M):
            lost.append(f"{path.name}: {record.get('trajectory_id')}")
    assert not lost, lost[:10]


def test_an_expected_rule_rule_is_shown_once(shared_corpus: Path) -> None:
    sentences = {r["expected_rule"].strip() for _p, r in _records(shared_corpus)
                 if isinstance(r.get("expected_rule"), str) and r["expected_rule"].strip()}
    assert sentences
    for sentence in sentences:
        shown = rule_sentence(sentence, sentence)  # how materialise_expected_rules stores it
        assert shown == " ".join(sentence.split())


def test_a_rule_with_two_parts_still_reads_when_then_do() -> None:
    assert rule_sentence("docker build fails", "pin the base image") == "when docker build fails, pin the base image"
    assert rule_sentence("when git push fails", "pull first") == "when git push fails, pull first"
