"""The publish kill drill (issue 28), bounded: 3 SIGKILLs (benchmarks/publish_drill.py runs 30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.drills.publish_kills import publish_kill_drill


@pytest.mark.slow
def test_a_killed_publish_leaves_the_old_or_the_new_store(tmp_path: Path) -> None:
    drill = publish_kill_drill(tmp_path, kills=3, seed=7)
    print(f"\n{drill}")
    assert drill.kills == 3 and drill.mixed == 0, drill.problems
    assert drill.completed_after == 3 and drill.refused_after == 0 and drill.leftovers == 0, drill.problems
