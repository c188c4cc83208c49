"""Building real stores for the drills: a generated corpus imported, replayed, reviewed.

``make_corpus(folder, variant, n)`` writes a corpus whose records differ by variant, so an
export from store A can be told from one from store B byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

DOMAINS = ("git", "k8s", "python", "docker")


def record(i: int, variant: str, success: bool) -> dict[str, object]:
    domain = DOMAINS[i % len(DOMAINS)]
    return {
        "trajectory_id": f"{'S' if success else 'F'}-{i:05d}",
        "timestamp": "2026-09-01T00:00:00Z",
        "task": f"[{variant}] {domain} task number {i}: push the release branch and deploy",
        "steps": [{"step_number": 1, "tool": "bash", "input": f"{domain} do {i}", "output": None,
                   "error": None if success else f"{domain} failed: rejected {i % 7}"}],
        "success": success,
        "domain": domain,
        "failure_class": None if success else f"{domain}/push/rejected-{i % 5}",
        "failure_point": None if success else "step_1",
        "expected_rule": None if success or i % 10 else f"when {domain} fails with rejected {i % 7}, fetch first ({variant})",
    }


def make_corpus(root: Path, variant: str, n: int = 300, files: int = 6) -> dict[str, int]:
    """Write ``n`` records over ``files`` files under ``root/failures`` and ``root/successes``;
    return {trajectory_id: expected count}."""
    expected: dict[str, int] = {}
    per_file: dict[Path, list[str]] = {}
    for i in range(n):
        success = i % 3 == 0
        folder = root / ("successes" if success else "failures")
        path = folder / f"part-{i % files}.jsonl"
        data = record(i, variant, success)
        per_file.setdefault(path, []).append(json.dumps(data))
        expected[str(data["trajectory_id"])] = expected.get(str(data["trajectory_id"]), 0) + 1
    for path, lines in per_file.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return expected


def build_store(path: Path, corpus_root: Path, variant: str, n: int = 300) -> None:
    """A store with the corpus imported, a replay run, some approvals and labels."""
    from core.domain.labels import LabelText
    from core.importing import import_paths
    from core.labels.service import save_label
    from core.promotion.service import approve
    from core.replay.profiles import profile_by_name
    from core.replaying import materialise_expected_rules, run_replay
    from core.store.engine import open_store
    from core.store.replay_repo import ReplayRepository

    make_corpus(corpus_root, variant, n)
    store = open_store(path)
    try:
        import_paths(store, [corpus_root])
        materialise_expected_rules(store)
        profile = profile_by_name("workbench").with_(semantic=False)
        summary = run_replay(store, profile, include_expected_rules=True, scope="drill")
        replays = ReplayRepository(store)
        for result in replays.results(summary.run_id)[:4]:
            waivers = {o.trajectory_id: "drill" for o in replays.outcomes(result.id, "broken")}
            approve(store, result.rule_id, summary.run_id, "ana", f"drill {variant}", waivers=waivers,
                    allow_non_pass=True, acknowledge_no_task=True)  # expected_rule copies: one sentence
        from sqlalchemy import text

        with store.read_session() as session:
            pks = [int(r[0]) for r in session.execute(text("SELECT id FROM trajectory ORDER BY id LIMIT 20"))]
        for pk in pks:
            save_label(store, pk, "ana", LabelText(f"when {variant} {pk} fails", f"retry {variant}"))
    finally:
        store.close()
