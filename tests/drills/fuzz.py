"""Fuzzing the JSONL and YAML readers (and the importer over a real store) with hypothesis.

Every generated input must be read without an exception, within ``SLOW_S`` seconds, and
every problem must come back as an issue naming the file, a line (or None) and a reason.
The generators include each hostile case of issue 11: lone surrogates, alias bombs,
recursive aliases, huge fields, invalid UTF-8, truncation, deep nesting.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SLOW_S = 10.0
# Any character, plus a hostile alphabet often enough to matter: lone surrogates (which
# plain generation almost never draws), bidi overrides, ESC, NUL, YAML/Markdown syntax.
HOSTILE = st.sampled_from(["\ud800", "\udfff", "\udc80", "\u202e", "\u2066", "\x1b[31m", "\x00", "\n", "&a", "*a",
                           "](javascript:x)", "![i](http://x/i.png)", "# h", "a"])
ANY_TEXT = st.one_of(
    st.text(st.characters(codec=None, categories=None), max_size=40),
    st.lists(HOSTILE, max_size=6).map("".join),
)
FILE = "fuzz/case"


@dataclass
class FuzzStats:
    examples: int = 0
    issues: int = 0
    records: int = 0
    crashes: list[str] = field(default_factory=list)
    slowest_s: float = 0.0
    malformed_issues: list[str] = field(default_factory=list)


def _base_record(i: int) -> dict[str, Any]:
    return {"trajectory_id": f"T-{i}", "timestamp": "2026-09-01T00:00:00Z", "task": "push",
            "steps": [{"step_number": 1, "tool": "bash", "input": "git push", "output": None, "error": "x"}],
            "success": False, "domain": "git", "failure_class": "git/push"}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ANY_TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(ANY_TEXT, children, max_size=4),
    max_leaves=12,
)


@st.composite
def jsonl_documents(draw: Any) -> bytes:
    lines: list[bytes] = []
    for i in range(draw(st.integers(1, 5))):
        record = _base_record(i)
        for _ in range(draw(st.integers(0, 3))):
            key = draw(st.sampled_from([*record, "expected_rule", "expected_outcome"]) | ANY_TEXT)
            record[key] = draw(json_values)
        kind = draw(st.sampled_from(["json", "json", "pretty", "bytes", "cut", "deep", "big"]))
        text = json.dumps(record)  # ensure_ascii: a lone surrogate becomes a \udXXX escape
        if kind == "pretty":
            lines.append(json.dumps(record, indent=2).encode())
        elif kind == "bytes":
            lines.append(draw(st.binary(max_size=60)))
        elif kind == "cut":
            lines.append(text.encode()[: draw(st.integers(0, len(text)))])
        elif kind == "deep":
            depth = draw(st.integers(1, 5000))
            lines.append(("[" * depth + "]" * depth).encode())
        elif kind == "big":
            record["task"] = "x" * draw(st.integers(1000, 200_000))
            lines.append(json.dumps(record).encode())
        else:
            lines.append(text.encode())
    newline = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    prefix = draw(st.sampled_from([b"", b"\xef\xbb\xbf"]))
    return prefix + newline.join(lines) + draw(st.sampled_from([b"", newline]))


RULE = ("id: R-1\nstatus: active\nwhen: {{trigger: {trigger}}}\ndo: {{directive: {directive}}}\n"
        "confidence: {confidence}\npromoted_at: now\n"
        "provenance: {{source_trajectory: a, extracted_by: b, extract_timestamp: c}}\n{extra}")


@st.composite
def yaml_documents(draw: Any) -> bytes:
    kind = draw(st.sampled_from(["rule", "rule", "bomb", "recursive", "bytes", "text", "big", "dump"]))
    if kind == "bomb":
        width, depth = draw(st.integers(2, 12)), draw(st.integers(2, 12))
        rows = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
        rows += [f"a{d}: &a{d} [{', '.join([f'*a{d - 1}'] * width)}]" for d in range(1, depth)]
        return ("\n".join(rows) + "\n").encode()
    if kind == "recursive":
        return RULE.format(trigger="x", directive="y", confidence=0.5, extra="extra: &a [*a]\n").encode()
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "text":
        return draw(ANY_TEXT).encode("utf-8", "surrogatepass")
    if kind == "big":
        extra = f"outcome_trend: \"{draw(st.sampled_from(['x', '1', '-']) ) * draw(st.integers(1000, 300_000))}\"\n"
        return RULE.format(trigger="x", directive="y", confidence=0.5, extra=extra).encode()
    if kind == "dump":
        import yaml

        doc = draw(st.dictionaries(ANY_TEXT, json_values, max_size=6))
        try:
            return yaml.safe_dump(doc, allow_unicode=False).encode()
        except Exception:  # noqa: BLE001 — the emitter refuses some values; then use JSON, also YAML
            return json.dumps(doc).encode()
    scalar = st.one_of(ANY_TEXT.map(json.dumps), st.sampled_from(["", "~", "[1, 2]", "{a: b}", "2026-13-45", "&x y"]))
    extra = draw(st.sampled_from(["", "outcome_trend: [1, 0, 7]\n", "tags: [a, '', 3]\n", "when: 3\n"]))
    return RULE.format(trigger=draw(scalar), directive=draw(scalar), confidence=draw(st.sampled_from(
        ["0.5", "2", "nan", "'x'", ".inf"])), extra=extra).encode()


def _check_issues(stats: FuzzStats, issues: Any, data: bytes) -> None:
    for issue in issues:
        stats.issues += 1
        if issue.file != FILE or not issue.reason or not (issue.line is None or issue.line >= 1):
            stats.malformed_issues.append(f"{issue!r} for {data[:80]!r}")


def _timed(stats: FuzzStats, data: bytes, call: Any) -> Any:
    started = time.perf_counter()
    try:
        return call()
    except Exception as error:  # noqa: BLE001 — a crash is what we count
        stats.crashes.append(f"{type(error).__name__}: {error} for {data[:120]!r}")
        return None
    finally:
        stats.examples += 1
        stats.slowest_s = max(stats.slowest_s, time.perf_counter() - started)


def fuzz_jsonl(examples: int, seed: int = 0) -> FuzzStats:
    from core.corpus.jsonl import read_trajectory_bytes

    stats = FuzzStats()

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(jsonl_documents())
    def check(data: bytes) -> None:
        result = _timed(stats, data, lambda: read_trajectory_bytes(data, FILE))
        if result is not None:
            stats.records += len(result.records)
            _check_issues(stats, result.issues, data)

    _seeded(check, seed)()
    return stats


def fuzz_yaml(examples: int, seed: int = 0) -> FuzzStats:
    from core.corpus.rules import read_rule_bytes

    stats = FuzzStats()

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(yaml_documents())
    def check(data: bytes) -> None:
        result = _timed(stats, data, lambda: read_rule_bytes(data, FILE))
        if result is not None:
            stats.records += result.rule is not None
            _check_issues(stats, result.issues, data)

    _seeded(check, seed)()
    return stats


def fuzz_import(store_path: Path, work: Path, examples: int, seed: int = 0) -> FuzzStats:
    """Whole imports into one real store: a JSONL and a YAML file per example."""
    from core.importing import import_paths
    from core.store.engine import open_store

    stats = FuzzStats()
    store = open_store(store_path)
    counter = [0]

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(jsonl_documents(), yaml_documents())
    def check(jsonl: bytes, yaml_doc: bytes) -> None:
        counter[0] += 1
        folder = work / f"case-{counter[0]}" / "failures"
        folder.mkdir(parents=True)
        (folder / "t.jsonl").write_bytes(jsonl)
        (folder / "r.yaml").write_bytes(yaml_doc)
        summary = _timed(stats, jsonl + yaml_doc, lambda: import_paths(store, [folder.parent]))
        if summary is not None:
            stats.records += summary.imported
            for issue in summary.issues:
                stats.issues += 1
                if not issue.file or not issue.reason:
                    stats.malformed_issues.append(repr(issue))

    try:
        _seeded(check, seed)()
    finally:
        store.close()
    return stats


def _seeded(test: Any, seed: int) -> Any:
    from hypothesis import seed as hypothesis_seed

    return hypothesis_seed(seed)(test)
