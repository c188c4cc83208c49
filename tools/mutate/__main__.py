"""``./dev.sh mutate [MODULE...]``: mutation scores for the modules whose numbers gate decisions.

For each module (default: every module in ``targets.toml``) every mutant from ``operators`` is
run against the tests that cover it (``targets.toml``), and the module's mutants, killed,
survived and score are printed, then each survivor with its line and change. Survivors
reviewed as equivalent (``equivalents.toml``, one reason each) are listed apart and left out
of the score: ``score = killed / (mutants - equivalent)``. An entry of that list that no longer
matches a surviving mutant is reported, so the list cannot silently go stale.

    python -m tools.mutate [MODULE...] [--jobs N] [--fail-under PERCENT] [--list]
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tools.mutate.operators import mutants
from tools.mutate.runner import Outcome, baseline_seconds, run_mutants, tree_copies

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


@dataclass(frozen=True)
class Target:
    module: str  # path from the project root, e.g. core/metrics/interrater.py
    tests: tuple[str, ...]
    # A pytest -k expression, or None for every test of those files. "not postgresql" runs the store
    # tests on SQLite only: a mutant of the decision logic acts alike on both back ends (their parity
    # is the suite's job), and a PostgreSQL cluster per mutant would double a slow module's run.
    select: str | None = None

    def pytest_args(self) -> tuple[str, ...]:
        return (*(("-k", self.select) if self.select else ()), *self.tests)


def load_targets(path: Path = HERE / "targets.toml") -> dict[str, Target]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {module: Target(module, tuple(entry["tests"]), entry.get("select"))
            for module, entry in data["module"].items()}


def load_equivalents(path: Path = HERE / "equivalents.toml") -> dict[str, dict[str, str]]:
    """module -> {mutant key: reason}."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out: dict[str, dict[str, str]] = {}
    for entry in data.get("equivalent", []):
        out.setdefault(entry["module"], {})[entry["mutant"]] = entry["reason"]
    return out


def _normalise(name: str) -> str:
    """``core.metrics.interrater`` or ``core/metrics/interrater.py`` -> the path form."""
    if name.endswith(".py"):
        return name
    return name.replace(".", "/") + ".py"


def report(module: str, outcomes: list[Outcome], equivalent: dict[str, str]) -> float:
    """Prints the module's block; returns its score in percent."""
    survived = [o for o in outcomes if o.status == "survived"]
    excluded = [o for o in survived if o.mutant.key in equivalent]
    real = [o for o in survived if o.mutant.key not in equivalent]
    killed = len(outcomes) - len(survived)
    timeouts = sum(1 for o in outcomes if o.status == "timeout")
    counted = len(outcomes) - len(excluded)
    score = 100.0 * killed / counted if counted else 100.0
    print(f"{module}: {len(outcomes)} mutants, {killed} killed ({timeouts} by timeout), {len(real)} survived, "
          f"{len(excluded)} equivalent (excluded): score {score:.1f} % ({killed}/{counted})")
    for o in real:
        print(f"  survived    line {o.mutant.line:4d}  {o.mutant.key}")
    for o in excluded:
        print(f"  equivalent  line {o.mutant.line:4d}  {o.mutant.key}  -- {equivalent[o.mutant.key]}")
    surviving_keys = {o.mutant.key for o in survived}
    for key in sorted(set(equivalent) - surviving_keys):
        print(f"  STALE equivalent entry (no such survivor now): {key}")
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev.sh mutate", description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="module paths or dotted names (default: all in targets.toml)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2: two cores)")
    parser.add_argument("--fail-under", type=float, default=0.0, help="exit 1 when a module scores below this")
    parser.add_argument("--list", action="store_true", help="print the mutants without running them")
    parser.add_argument("--only", type=Path, help="run only the mutants whose keys (function :: change) are lines "
                        "of this file, e.g. the survivors of the last full run after adding tests")
    args = parser.parse_args(argv)
    targets = load_targets()
    equivalents = load_equivalents()
    names = [_normalise(m) for m in args.modules] or list(targets)
    unknown = [n for n in names if n not in targets]
    if unknown:
        print(f"mutate: no covering tests listed in tools/mutate/targets.toml for: {', '.join(unknown)}",
              file=sys.stderr)
        return 2
    status = 0
    with tree_copies(ROOT, 0 if args.list else max(1, args.jobs)) as copies:
        for name in names:
            target = targets[name]
            source = (ROOT / name).read_text(encoding="utf-8")
            found = mutants(source)
            if args.only is not None:
                wanted = set(args.only.read_text(encoding="utf-8").splitlines())
                found = [m for m in found if m.key in wanted]
            if args.list:
                for m in found:
                    print(f"{name}:{m.line}: {m.key}")
                continue
            base = baseline_seconds(copies[0], target.pytest_args())
            # Generous: the machine is shared, and a slow mutant is not a killed one unless it hangs.
            timeout = max(30.0, 5.0 * base)
            started = time.monotonic()
            selected = f" -k {target.select!r}" if target.select else ""
            print(f"{name}: {len(found)} mutants against {' '.join(target.tests)}{selected} "
                  f"(baseline {base:.1f} s, timeout {timeout:.0f} s, {len(copies)} at once)", flush=True)
            done: list[Outcome] = []

            def progress(outcome: Outcome, total: int = len(found)) -> None:
                done.append(outcome)
                if len(done) % 25 == 0:
                    print(f"  ... {len(done)}/{total}", file=sys.stderr, flush=True)

            outcomes = run_mutants(copies, name, source, found, target.pytest_args(), timeout, progress)
            score = report(name, outcomes, equivalents.get(name, {}))
            print(f"  ({time.monotonic() - started:.0f} s)", flush=True)
            if score < args.fail_under:
                status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
