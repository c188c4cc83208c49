"""The §4.9 test-vector table of the reference doc (0.3.1, lexical, threshold 0.70).

Hand-written records mimicking the field-test records: G-001 (golden git non-fast-forward),
F-031 (reworded git non-fast-forward), NM-015 (recovered near miss, a success), G-002
(golden Python import failure), S-020 (docker success).
"""

from __future__ import annotations

import pytest

from core.matching import REFERENCE_0_3_1, RuleText, TrajectoryViews, decide, explain

G001 = {
    "trajectory_id": "G-001", "timestamp": "t", "success": False, "domain": "git",
    "task": "Push local feature branch commits to remote main",
    "failure_point": "git push rejected", "failure_class": "git/push/non-fast-forward",
    "steps": [
        {"step_number": 1, "tool": "bash", "input": "git push origin main",
         "error": "error: failed to push some refs to 'origin'\n ! [rejected] main -> main (non-fast-forward)"},
        {"step_number": 2, "tool": "bash", "input": "git pull --rebase origin main",
         "output": "Successfully rebased; step 2 complete."},
    ],
}
F031 = {
    "trajectory_id": "F-031", "timestamp": "t", "success": False, "domain": "git",
    "task": "Push feature branch to remote", "failure_point": "step_1",
    "failure_class": "git/push/non-fast-forward",
    "steps": [
        {"step_number": 1, "tool": "git", "input": "git push origin feature/login", "output": None,
         "error": "! [remote rejected] feature/login -> main (non-fast-forward)"},
        {"step_number": 2, "tool": "git", "input": "git pull --rebase && git push",
         "output": "Everything up-to-date", "error": None},
    ],
}
NM015 = {
    "trajectory_id": "NM-015", "timestamp": "t", "success": True, "domain": "git",
    "task": "Git push fails, retry succeeds", "failure_point": "step_1",
    "failure_class": "git/push/temporary",
    "steps": [
        {"step_number": 1, "tool": "bash", "input": "git push origin feature", "output": None,
         "error": "! [rejected] non-fast-forward"},
        {"step_number": 2, "tool": "bash", "input": "git pull --rebase && git push",
         "output": "Everything up-to-date", "error": None},
    ],
}
G002 = {
    "trajectory_id": "G-002", "timestamp": "t", "success": False, "domain": "python",
    "task": "Run the unit tests after adding a dependency",
    "failure_point": "import failed in test collection step",
    "failure_class": "python/import/module-not-found",
    "steps": [
        {"step_number": 1, "tool": "bash", "input": "python -m pytest",
         "error": "ModuleNotFoundError: No module named 'requests'"},
        {"step_number": 2, "tool": "bash", "input": "pip install requests",
         "output": "Successfully installed requests"},
    ],
}
S020 = {
    "trajectory_id": "S-020", "timestamp": "t", "success": True, "domain": "docker",
    "task": "Successful docker operation", "failure_class": None, "failure_point": "",
    "steps": [{"step_number": 1, "tool": "bash", "input": "Run docker command",
               "output": "Completed successfully", "error": None}],
}
RECORDS = {"G-001": G001, "F-031": F031, "NM-015": NM015, "G-002": G002, "S-020": S020}

# trigger -> {record: (score, matches at 0.70)}; prefilter-blocked triggers never match.
TABLE = {
    "git push fails with non-fast-forward": {
        "G-001": (0.70, True), "F-031": (0.70, True), "NM-015": (0.70, True),
        "G-002": (0.0558, False), "S-020": (0.0, False)},
    "push rejected because remote contains work": {
        "G-001": (0.70, True), "F-031": (0.70, True), "NM-015": (0.70, True),
        "G-002": (0.0, False), "S-020": (0.0, False)},
    "git push": {
        "G-001": (1.0, True), "F-031": (1.0, True), "NM-015": (1.0, True),
        "G-002": (0.0, False), "S-020": (0.0, False)},
    "remote branch has diverged": {
        "G-001": (0.16, False), "F-031": (0.16, False), "NM-015": (0.0, False),
        "G-002": (0.0, False), "S-020": (0.0, False)},
    "ModuleNotFoundError when importing package": {
        "G-001": (0.0, False), "F-031": (0.0, False), "NM-015": (0.0, False),
        "G-002": (0.70, True), "S-020": (0.0, False)},
    "error": {
        "G-001": (1.0, False), "F-031": (0.0, False), "NM-015": (0.0, False),
        "G-002": (1.0, False), "S-020": (0.0, False)},
    "step_1": {
        "G-001": (0.24, False), "F-031": (1.0, False), "NM-015": (1.0, False),
        "G-002": (0.24, False), "S-020": (0.0, False)},
}
CASES = [(t, r, *cell) for t, row in TABLE.items() for r, cell in row.items()]


@pytest.mark.parametrize(("trigger", "record", "score", "matches"), CASES)
def test_reference_doc_vector(trigger: str, record: str, score: float, matches: bool) -> None:
    views = TrajectoryViews.from_record(RECORDS[record])
    assert explain(RuleText(trigger), views, REFERENCE_0_3_1).score == score
    assert decide(RuleText(trigger), views, 0.70).matched is matches


def test_prefilter_blocked_triggers_report_score_zero_but_keep_their_parts() -> None:
    views = TrajectoryViews.from_record(G001)
    decision = decide(RuleText("error"), views, 0.70)
    assert decision.blocked_by == "prefilter:generic"
    assert decision.score == 0.0 and decision.parts.score == 1.0
    assert decide(RuleText("step_1"), views, 0.2).blocked_by == "prefilter:degenerate"


def test_most_true_matches_sit_on_a_floor() -> None:
    parts = explain(RuleText("git push fails with non-fast-forward"), TrajectoryViews.from_record(G001))
    assert parts.score == 0.70 and parts.blend < 0.70 and parts.floor == "distinctive_phrase"
