"""The demo corpus (corpora/demo) is well-formed and shows every designed replay case.

The reference implementation (``cauterule==0.3.1``) is used as an oracle here on purpose:
the demo corpus is only useful if the reference's own loader, models and matcher read it
the way corpora/demo/README.md says they do. Replay runs in lexical mode (semantic
matching off), which is the reference's default.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

cauterule = pytest.importorskip("cauterule", reason="reference cauterule==0.3.1 not installed")

from cauterule.models.candidate import CandidateRule  # noqa: E402
from cauterule.models.rule import StandingRule  # noqa: E402
from cauterule.models.trajectory import Trajectory  # noqa: E402
from cauterule.replay import embeddings  # noqa: E402
from cauterule.replay.report import build_evidence_report  # noqa: E402
from cauterule.serialization.rule_yaml import load_rule_from_file  # noqa: E402
from cauterule.serialization.trajectory_jsonl import (  # noqa: E402
    load_trajectories,
    load_trajectories_result,
)

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"
ROLES = ("failures", "successes", "nearmiss", "adversarial")
JSONL_FILES = sorted(DEMO.rglob("*.jsonl"))
CANDIDATE_FILES = sorted((DEMO / "candidates").glob("*.yaml"))
RULE_FILES = sorted((DEMO / "rules").glob("*.yaml"))


def _rel(path: Path) -> str:
    return path.relative_to(DEMO).as_posix()


def _raw_records(path: Path) -> Iterator[dict[str, Any]]:
    """Yield the raw JSON objects of a file, one-per-line or pretty-printed."""
    text = path.read_text(encoding="utf-8")
    decoder = json.JSONDecoder()
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return
        obj, pos = decoder.raw_decode(text, pos)
        yield obj


def _role(path: Path) -> str:
    return path.relative_to(DEMO).parts[0]


@pytest.fixture(autouse=True)
def _lexical_matching(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("CAUTERULE_SEMANTIC_MATCHING", raising=False)
    embeddings.reset_embedder()
    yield
    embeddings.reset_embedder()


@pytest.fixture(scope="module")
def trajectories() -> list[Trajectory]:
    return [t for path in JSONL_FILES for t in load_trajectories(path, strict=True)]


@pytest.fixture(scope="module")
def raw_records() -> list[tuple[Path, dict[str, Any]]]:
    return [(path, rec) for path in JSONL_FILES for rec in _raw_records(path)]


def _candidate(stem: str) -> CandidateRule:
    path = DEMO / "candidates" / f"{stem}.yaml"
    return CandidateRule.from_dict(yaml.safe_load(path.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------- loading


def test_demo_corpus_layout() -> None:
    assert DEMO.is_dir()
    assert (DEMO / "README.md").is_file()
    for role in ROLES:
        assert list((DEMO / role).glob("*.jsonl")), f"no JSONL files under {role}/"
    assert {_role(p) for p in JSONL_FILES} == set(ROLES)


@pytest.mark.parametrize("path", JSONL_FILES, ids=_rel)
def test_every_record_loads_strictly(path: Path) -> None:
    loaded = list(load_trajectories(path, strict=True))
    raw = list(_raw_records(path))
    assert len(loaded) == len(raw) >= 1
    result = load_trajectories_result(path, strict=False)
    assert result.skipped == 0 and result.errors == []


def test_size_and_domains(trajectories: list[Trajectory]) -> None:
    assert 30 <= len(trajectories) <= 60
    domains = {t.domain for t in trajectories}
    assert None not in domains
    assert len(domains) >= 4
    ids = [t.id for t in trajectories]
    assert len(ids) == len(set(ids)), "trajectory ids must be unique in the demo corpus"


def test_every_record_is_the_projects_own(raw_records: list[tuple[Path, dict[str, Any]]]) -> None:
    for path, rec in raw_records:
        assert rec.get("source") == "workbench-demo", f"{_rel(path)}: {rec.get('trajectory_id')}"
        for key in ("trajectory_id", "timestamp", "task", "steps", "success", "domain",
                    "quality_label", "tags", "expected_outcome", "expected_outcome_rationale"):
            assert key in rec, f"{_rel(path)}: {rec.get('trajectory_id')} lacks {key}"


def test_roles_match_folders(trajectories: list[Trajectory],
                             raw_records: list[tuple[Path, dict[str, Any]]]) -> None:
    by_role: dict[str, list[dict[str, Any]]] = {role: [] for role in ROLES}
    for path, rec in raw_records:
        by_role[_role(path)].append(rec)

    for rec in by_role["failures"]:
        assert rec["success"] is False
        assert rec["expected_outcome"] == "should_extract"
        assert rec["failure_class"] and "/" in rec["failure_class"]
        assert rec["failure_point"]
    with_rule = [r for r in by_role["failures"] if r.get("expected_rule")]
    assert len(with_rule) >= len(by_role["failures"]) // 2
    for rec in with_rule:
        assert rec["expected_rule"].startswith("when ") and ", " in rec["expected_rule"]

    for rec in by_role["successes"]:
        assert rec["success"] is True
        assert rec["expected_outcome"] == "should_silence"
        assert not rec.get("failure_class") and not rec.get("failure_point")
        assert all(not s.get("error") for s in rec["steps"])

    for rec in by_role["nearmiss"]:
        assert rec["success"] is True
        assert rec["expected_outcome"] == "should_reject"
        assert {"retry", "nearmiss"} <= set(rec["tags"])
        assert len(rec["steps"]) >= 2 and rec["steps"][0]["error"]
        assert not rec["steps"][-1]["error"]

    assert 1 <= len(by_role["adversarial"]) <= 3
    for rec in by_role["adversarial"]:
        assert rec["expected_outcome"] == "should_reject"
        assert rec["failure_class"].startswith("adversarial/")
        assert rec["quality_label"] == "misleading"
    adversarial_text = json.dumps(by_role["adversarial"]).lower()
    for marker in ("<b>", "<script>alert(1)</script>", "<a href=", "ignore previous instructions"):
        assert marker in adversarial_text, marker


def test_shares_words_between_failures_and_successes(trajectories: list[Trajectory]) -> None:
    def inputs(success: bool) -> str:
        return " ".join(s.input or "" for t in trajectories if t.success is success and
                        not t.id.startswith("DN-") for s in t.steps)

    ok, failed = inputs(True), inputs(False)
    for command in ("git push", "git status", "docker build", "pip install -r requirements.txt",
                    "kubectl get pods", "terraform plan"):
        assert command in ok, command
    for command in ("git push", "docker build", "pip install -r requirements.txt", "kubectl get pods"):
        assert command in failed, command


def test_format_quirks_are_present() -> None:
    pretty = [p for p in JSONL_FILES if p.read_text(encoding="utf-8").splitlines()[0] == "{"]
    assert pretty, "expected one file with a pretty-printed multi-line record"
    literal_backslash_n = [
        rec["trajectory_id"]
        for path in JSONL_FILES
        for rec in _raw_records(path)
        for step in rec["steps"]
        if "\\n" in (step.get("error") or "")
    ]
    assert literal_backslash_n, "expected one error text with a literal backslash-n"


@pytest.mark.parametrize("path", CANDIDATE_FILES, ids=_rel)
def test_candidates_load(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    candidate = CandidateRule.from_dict(data)
    assert candidate.when.trigger.strip() and candidate.do.directive.strip()
    assert 0.0 <= candidate.confidence <= 1.0
    assert "extraction_pass" in data


def test_candidate_count() -> None:
    assert 4 <= len(CANDIDATE_FILES) <= 8


@pytest.mark.parametrize("path", RULE_FILES, ids=_rel)
def test_standing_rules_load(path: Path, trajectories: list[Trajectory]) -> None:
    rule = load_rule_from_file(path)
    assert isinstance(rule, StandingRule)
    assert rule.id == path.stem
    assert rule.status == "active"
    assert rule.provenance.source_trajectory in {t.id for t in trajectories}


def test_standing_rule_count() -> None:
    assert 1 <= len(RULE_FILES) <= 2


# --------------------------------------------------------------------------- replay oracle

# (prevented, broken, near_misses, verdict, verdict_reason) at threshold 0.6.
EXPECTED_AT_060: dict[str, tuple[set[str], set[str], set[str], str, str | None]] = {
    "C-01-git-push-non-ff": (
        {"DF-GIT-001-push-non-ff", "DF-GIT-002-hotfix-push-behind", "DF-GIT-004-push-forbidden"},
        set(),
        {"DN-GIT-001-push-retry-after-rebase"},
        "pass", None,
    ),
    "C-02-pip-install-requirements": (
        {"DF-PY-002-pip-resolver-conflict"},
        {"DS-PY-001-venv-setup", "DS-PY-002-tests-green", "DS-PY-003-lint-clean",
         "DS-DOCKER-001-build-api-image"},
        {"DN-PY-001-pip-install-retry"},
        "fail", "blocked_by_broken",
    ),
    "C-03-docker-base-image-timeout": (
        {"DF-DOCKER-002-base-image-timeout"},
        set(),
        {"DN-DOCKER-001-base-image-retry", "DN-PY-001-pip-install-retry", "DN-API-001-rate-limit-backoff",
         "DN-K8S-001-rollout-recovered", "DN-TF-001-state-lock-wait"},
        "inconclusive", "blocked_by_near_miss",
    ),
    "C-04-api-credentials-refused": (set(), set(), set(), "inconclusive", "no_signal"),
    "C-05-k8s-pod-oomkilled": (
        {"DF-K8S-001-worker-oomkilled", "DF-K8S-002-crashloop-after-upgrade"},
        set(), set(), "pass", None,
    ),
    "C-06-terraform-state-lock": (
        {"DF-TF-001-apply-state-lock", "DF-TF-002-plan-state-locked"},
        set(),
        {"DN-TF-001-state-lock-wait"},
        "pass", None,
    ),
}

EXPECTED_VERDICTS = {stem: expected[3] for stem, expected in EXPECTED_AT_060.items()}


def test_expected_table_covers_every_candidate() -> None:
    assert {p.stem for p in CANDIDATE_FILES} == set(EXPECTED_AT_060)


@pytest.mark.parametrize("stem", sorted(EXPECTED_AT_060))
def test_replay_buckets_at_060(stem: str, trajectories: list[Trajectory]) -> None:
    prevented, broken, near, verdict, reason = EXPECTED_AT_060[stem]
    report = build_evidence_report(_candidate(stem), trajectories, threshold=0.6)
    assert set(report.failures_prevented) == prevented
    assert set(report.successes_broken) == broken
    assert set(report.near_misses) == near
    assert report.verdict == verdict
    assert report.verdict_reason == reason


@pytest.mark.parametrize("threshold", [0.6, 0.65, 0.7])
def test_verdicts_are_stable_across_thresholds(threshold: float, trajectories: list[Trajectory]) -> None:
    verdicts = {
        stem: build_evidence_report(_candidate(stem), trajectories, threshold=threshold).verdict
        for stem in EXPECTED_VERDICTS
    }
    assert verdicts == EXPECTED_VERDICTS


def test_every_designed_case_happens(trajectories: list[Trajectory]) -> None:
    by_id = {t.id: t for t in trajectories}
    reports = {
        stem: build_evidence_report(_candidate(stem), trajectories, threshold=0.6)
        for stem in EXPECTED_AT_060
    }
    # prevented failures
    assert any(r.failures_prevented for r in reports.values())
    # a broken success whose trigger strongly matches a success in the rule's own domain
    assert any(by_id[b].domain == "python" for b in reports["C-02-pip-install-requirements"].successes_broken)
    # a near miss on a recovered run (success after a failing step)
    near = {n for r in reports.values() for n in r.near_misses}
    assert near and all(by_id[n].success and by_id[n].steps[0].error for n in near)
    # pass / fail (broken > prevented) / no signal
    verdicts = {r.verdict for r in reports.values()}
    assert {"pass", "fail", "inconclusive"} <= verdicts
    failed = reports["C-02-pip-install-requirements"]
    assert len(failed.successes_broken) > len(failed.failures_prevented)
    silent = reports["C-04-api-credentials-refused"]
    assert silent.verdict_reason == "no_signal" and silent.inconclusive_reason == "matcher_gap"


def test_successes_sharing_words_are_not_broken_by_good_rules(trajectories: list[Trajectory]) -> None:
    report = build_evidence_report(_candidate("C-01-git-push-non-ff"), trajectories, threshold=0.6)
    outcomes = {row["trajectory_id"]: row["outcome"] for row in report.replay_trace}
    for success in ("DS-GIT-001-status-clean", "DS-GIT-002-push-feature", "DS-GIT-003-rebase-clean"):
        assert outcomes[success] == "no_effect"


def test_adversarial_records_are_never_prevented(trajectories: list[Trajectory]) -> None:
    adversarial = {t.id for t in trajectories if (t.failure_class or "").startswith("adversarial/")}
    for stem in EXPECTED_AT_060:
        report = build_evidence_report(_candidate(stem), trajectories, threshold=0.6)
        assert not adversarial & set(report.failures_prevented), stem


@pytest.mark.parametrize("path", RULE_FILES, ids=_rel)
def test_standing_rules_pass_replay(path: Path, trajectories: list[Trajectory]) -> None:
    rule = load_rule_from_file(path)
    candidate = CandidateRule(when=rule.when, do=rule.do, confidence=rule.confidence)
    for threshold in (0.6, 0.7):
        report = build_evidence_report(candidate, trajectories, threshold=threshold)
        assert report.verdict == "pass", (rule.id, threshold)
        assert rule.provenance.source_trajectory in report.failures_prevented
        assert not report.successes_broken
    evidence = rule.provenance.replay_evidence
    if evidence is not None:
        report = build_evidence_report(candidate, trajectories, threshold=0.7)
        assert set(evidence.failures_prevented) == set(report.failures_prevented)
