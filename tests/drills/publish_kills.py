"""Kill drill for ``publish`` (issue 28): SIGKILL a ``publish --yes`` at a random moment.

Each round starts from the same imported store and the same rule store folder (one approval
to add, one imported rule retired), runs ``cauterule-workbench publish --yes`` in a child
process and kills it after a random delay within one publish's measured wall time. The
folder must then hold the old rule store or the new one, byte for byte, never a mix; and a
publish run to the end afterwards must succeed (an interrupted publish is never taken for
someone else's change) and leave the new store with no staging folder beside it.
"""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from core.importing import import_paths
from core.promotion import approve, retire
from core.store.engine import open_store

from tests.core.test_promotion_support import Builder
from tests.drills.kills import env

RULE = """id: {id}
when:
  trigger: {trigger}
do:
  directive: {directive}
confidence: 0.7
provenance:
  source_trajectory: T-1
  extracted_by: drill
  extract_timestamp: '2026-09-10T10:00:00Z'
  extraction_pass: 1
status: active
promoted_at: '2026-09-10T10:00:00Z'
hit_count: 0
"""


def build_fixture(root: Path) -> tuple[Path, Path]:
    """An imported rule store (R-001..R-003) and a store with R-004 approved and R-001 retired."""
    rules = root / "rules"
    rules.mkdir(parents=True)
    for number, (trigger, directive) in enumerate([("when git push is rejected", "pull --rebase first"),
                                                   ("when pytest cannot import a module", "install it in the venv"),
                                                   ("when the docker socket is denied", "add the docker group")], 1):
        (rules / f"R-{number:03d}.yaml").write_text(RULE.format(id=f"R-{number:03d}", trigger=trigger,
                                                                directive=directive), encoding="utf-8")
    database = root / "s.sqlite"
    store = open_store(database)
    try:
        import_paths(store, [rules])
        b = Builder(store)
        b.trajectories("F-1", "F-2")
        rule = b.rule("c/new.yaml", "when terraform state lock is held", "wait for the lock, then retry")
        approve(store, rule, b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})]), "ana", "reviewed")
        retire(store, "R-001", "ana", "too broad")
    finally:
        store.close()
    return database, rules


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@dataclass
class PublishDrill:
    kills: int = 0
    old: int = 0
    new: int = 0
    mixed: int = 0
    completed_after: int = 0
    refused_after: int = 0
    leftovers: int = 0
    publish_seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


# The child loads everything first and says so, then waits for "go": the kill delay is then
# spread over the publish itself, not over Python's start-up (which is most of a CLI run).
_RUNNER = """
import sys
from core.cli.commands import main
import core.publish.service, core.publish.plan, core.cli.publish  # noqa: F401
print("ready", flush=True)
sys.stdin.readline()
sys.exit(main(sys.argv[1:]))
"""


def _publish(database: Path, rules: Path) -> subprocess.Popen[bytes]:
    child = subprocess.Popen([sys.executable, "-c", _RUNNER, "publish", "--store", str(database), "--to", str(rules),
                              "--yes", "--reviewer", "drill", "--acknowledge-no-task", "R-004"], env=env(), stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stdin is not None
    child.stdout.readline()  # "ready"
    child.stdin.write(b"go\n")
    child.stdin.flush()
    return child


def publish_kill_drill(work: Path, kills: int, seed: int = 1) -> PublishDrill:
    rng = random.Random(seed)
    template_db, template_rules = build_fixture(work / "template")
    old = tree(template_rules)
    drill = PublishDrill()
    # One publish to the end gives the new store and the time window the kills are spread over.
    database, rules = _fresh(work / "measure", template_db, template_rules)
    done = _publish(database, rules)
    started = time.monotonic()
    _out, err = done.communicate(timeout=300)
    drill.publish_seconds = time.monotonic() - started
    if done.returncode != 0:
        drill.problems.append(f"the measuring publish failed: {err.decode(errors='replace')[-300:]}")
        return drill
    new = tree(rules)
    for round_number in range(kills):
        database, rules = _fresh(work / f"round-{round_number}", template_db, template_rules)
        child = _publish(database, rules)
        time.sleep(rng.uniform(0.0, drill.publish_seconds))  # after "go"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        drill.kills += 1
        state = tree(rules)
        if state == old:
            drill.old += 1
        elif state == new:
            drill.new += 1
        else:
            drill.mixed += 1
            drill.problems.append(f"round {round_number}: a mix of old and new ({sorted(state)})")
        after = _publish(database, rules)
        _out, err = after.communicate(timeout=300)
        if after.returncode != 0:
            drill.refused_after += 1
            drill.problems.append(f"round {round_number}: publish after the kill failed: "
                                  f"{err.decode(errors='replace').strip()[-300:]}")
        elif tree(rules) == new:
            drill.completed_after += 1
        else:
            drill.problems.append(f"round {round_number}: the publish after the kill did not give the new store")
        drill.leftovers += sum(1 for p in rules.parent.iterdir() if ".staging-" in p.name or ".old-" in p.name)
    return drill


def _fresh(folder: Path, template_db: Path, template_rules: Path) -> tuple[Path, Path]:
    """The template store and rule folder copied to ``folder``. The snapshot recorded at import
    names the folder by its absolute path, so the rule folder is copied to the template's own
    path on the way (the template folder is put back after)."""
    folder.mkdir(parents=True)
    database = folder / "s.sqlite"
    shutil.copy(template_db, database)
    rules = folder / "rules"
    shutil.copytree(template_rules, rules)
    _repoint(database, template_rules, rules)
    return database, rules


def _repoint(database: Path, old_root: Path, new_root: Path) -> None:
    """Move the import snapshot of ``old_root`` to ``new_root`` (a copied rule store)."""
    from core.publish import snapshot

    store = open_store(database)
    try:
        recorded = snapshot.load(store, old_root)
        assert recorded is not None
        snapshot.record(store, new_root, recorded.files, recorded.owners)
    finally:
        store.close()
