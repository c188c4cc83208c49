"""Stores larger than one page, for the paging tests: a bucket of 10^4 evidence rows, and a
group of duplicate rules larger than the rules table's page whose buckets are too."""

from __future__ import annotations

from pathlib import Path

from conftest import build_replayed_store
from gui_records import trajectory, write_jsonl

SENTENCE = "when a rollout times out, check the readiness probe"


def build_big_bucket_store(path: Path, failures: int = 10_001) -> None:
    """One rule (the first record's expected_rule) that prevents every other failure: its
    prevented bucket holds ``failures - 1`` rows (its own source trajectory is not counted)."""
    root = path.parent / "big-bucket-corpus"
    write_jsonl(root / "failures" / "rollouts.jsonl", [
        trajectory(f"F-{i:05d}-rollout-timeout", task="Roll out the payments service", domain="k8s",
                   expected_rule=SENTENCE if i == 0 else None) for i in range(failures)])
    build_replayed_store(path, [root])


def build_big_group_store(path: Path, copies: int = 230) -> None:
    """``copies`` failures carrying the same expected_rule (one duplicate group of ``copies``
    rules, each preventing the other copies), successes that look the same (broken rows) and
    failures of another kind (missed rows)."""
    root = path.parent / "big-group-corpus"
    failures = [trajectory(f"F-{i:04d}-rollout-timeout", task="Roll out the payments service", domain="k8s",
                           expected_rule=SENTENCE) for i in range(copies)]
    other = [trajectory(f"M-{i:02d}-disk-full", task="Write the nightly backup", domain="k8s",
                        failure_class="storage/disk-full",
                        steps=[{"step_number": 1, "tool": "shell", "input": "tar czf backup.tgz /data",
                                "output": "", "error": "No space left on device"}]) for i in range(4)]
    successes = [trajectory(f"S-{i:02d}-rollout", task="Roll out the payments service", domain="k8s", success=True,
                            failure_class=None, failure_point=None) for i in range(3)]
    write_jsonl(root / "failures" / "rollouts.jsonl", failures + other)
    write_jsonl(root / "successes" / "rollouts.jsonl", successes)
    build_replayed_store(path, [root])
