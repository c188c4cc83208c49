"""No correctness test asserts a wall-clock duration or waits a fixed time for something to happen.

An AST scan of every test module (issue 29). Flagged:

* ``qtbot.wait(...)`` / ``QTest.qWait(...)``: a fixed sleep standing in for a condition
  (use ``qtbot.waitUntil`` or ``qtbot.waitSignal``);
* ``time.sleep(...)`` directly in a ``test_*`` function (a sleep inside a nested function, a
  fake server's handler or a worker's job, simulates slow work and is fine);
* an ``assert`` that compares a clock reading (``time.perf_counter``, ``monotonic``, ``time``,
  ``process_time``, ``thread_time``) or a name computed from one: a bound on seconds belongs in
  ``benchmarks/``, which print it.

Not seen: a duration computed in another function or object and compared here (a heartbeat's
``worst`` gap); review catches those. ``ALLOWED`` is the reviewed exception list:
(file, function) -> why it is not a bound on speed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
CLOCKS = {"perf_counter", "monotonic", "time", "process_time", "thread_time", "perf_counter_ns", "monotonic_ns"}

ALLOWED: dict[tuple[str, str], str] = {
    ("postgres/test_window_conflicts.py", "idle"):
        "the timeout of a wait for jobs to finish (fails only when they never do), not a bound on speed",
    ("external/test_workspace_shared.py", "_settle"):
        "the timeout of a wait for the window's jobs to finish, not a bound on speed",
}


def _is_clock_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CLOCKS
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "time")


def _uses(node: ast.AST, clock_names: set[str]) -> bool:
    return any(_is_clock_call(n) or (isinstance(n, ast.Name) and n.id in clock_names) for n in ast.walk(node))


def _findings(path: Path) -> Iterator[tuple[str, int, str]]:
    """(enclosing function, line, what) for each flagged pattern in one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for function in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        nested = {id(n) for inner in ast.walk(function) if inner is not function
                  and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                  for n in ast.walk(inner)}
        own = [n for n in ast.walk(function) if id(n) not in nested]
        clock_names = {t.id for n in own if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
                       and _uses(n.value, set())
                       for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                       for t in ast.walk(t) if isinstance(t, ast.Name)}
        for node in own:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if node.func.attr == "wait" and isinstance(owner, ast.Name) and owner.id == "qtbot":
                    yield function.name, node.lineno, "qtbot.wait(...): wait on a condition instead"
                if node.func.attr == "qWait":
                    yield function.name, node.lineno, "QTest.qWait(...): wait on a condition instead"
                if (node.func.attr == "sleep" and isinstance(owner, ast.Name) and owner.id == "time"
                        and function.name.startswith("test_")):
                    yield function.name, node.lineno, "time.sleep(...) in a test body: wait on a condition instead"
            if isinstance(node, ast.Assert) and any(
                    isinstance(c, ast.Compare) and _uses(c, clock_names) for c in ast.walk(node.test)):
                yield function.name, node.lineno, "assert on a clock reading: make it a benchmark figure"


def _test_modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if p.name.startswith(("test_", "conftest")))


def test_no_test_waits_a_fixed_time_or_asserts_a_duration() -> None:
    found = []
    for path in _test_modules():
        relative = path.relative_to(TESTS).as_posix()
        for function, line, what in _findings(path):
            if (relative, function) not in ALLOWED:
                found.append(f"tests/{relative}:{line} ({function}): {what}")
    assert found == [], "\n".join(found)


def test_the_allow_list_names_only_places_that_still_need_it() -> None:
    needed = {(p.relative_to(TESTS).as_posix(), f) for p in _test_modules() for f, _line, _what in _findings(p)}
    assert set(ALLOWED) <= needed, set(ALLOWED) - needed


def test_the_scan_catches_each_pattern(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import time\n"
        "def test_a(qtbot):\n    qtbot.wait(30)\n"
        "def test_b():\n    time.sleep(0.1)\n"
        "def test_c():\n    t0 = time.perf_counter()\n    elapsed = time.perf_counter() - t0\n    assert elapsed < 1\n"
        "def test_d():\n    def work():\n        time.sleep(0.1)\n    work()\n",
        encoding="utf-8")
    assert [(f, line) for f, line, _ in _findings(sample)] == [("test_a", 3), ("test_b", 5), ("test_c", 9)]
