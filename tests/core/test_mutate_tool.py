"""The mutation tool's operators (tools/mutate): each change is made, named and applied alone."""

from __future__ import annotations

import ast

from tools.mutate.__main__ import load_equivalents, load_targets
from tools.mutate.operators import apply, mutants

SOURCE = '''"""Docstring is never mutated."""


def gate(k: int, n: int) -> bool:
    if n <= 0 or k < 0:
        raise ValueError("bad counts")
    share = k / n
    return any([share >= 0.8, k == n])
'''


def test_each_operator_makes_its_change() -> None:
    keys = {m.key for m in mutants(SOURCE)}
    assert "gate :: `n <= 0` -> `n < 0`" in keys
    assert "gate :: `n <= 0 or k < 0` -> `n <= 0 and k < 0`" in keys
    assert "gate :: `k / n` -> `k * n`" in keys
    assert "gate :: `share >= 0.8` -> `share >= 0.0`" in keys
    assert "gate :: `any([share >= 0.8, k == n])` -> `all([share >= 0.8, k == n])`" in keys
    assert "gate :: delete `share = k / n`" in keys
    assert "gate :: `return any([share >= 0.8, k == n])` -> `return None`" in keys


def test_docstrings_annotations_and_raise_messages_are_left_alone() -> None:
    changes = " ".join(m.change for m in mutants(SOURCE))
    assert "Docstring" not in changes and "XXbad countsXX" not in changes and "XXintXX" not in changes
    assert "gate :: delete `raise ValueError('bad counts')`" in {m.key for m in mutants(SOURCE)}  # the raise itself is


def test_apply_makes_exactly_one_change() -> None:
    for mutant in mutants(SOURCE):
        mutated = apply(SOURCE, mutant)
        assert ast.dump(ast.parse(mutated)) != ast.dump(ast.parse(SOURCE)), mutant.key
    boundary = next(m for m in mutants(SOURCE) if m.key == "gate :: `n <= 0` -> `n < 0`")
    assert "if n < 0 or k < 0:" in apply(SOURCE, boundary)


def test_every_target_and_equivalent_names_a_real_module() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent.parent
    targets = load_targets()
    for module, target in targets.items():
        assert (root / module).is_file(), module
        assert all((root / t).is_file() for t in target.tests), module
    assert set(load_equivalents()) <= set(targets)


def test_a_targets_selection_goes_to_pytest_and_is_not_taken_for_a_test_path() -> None:
    from tools.mutate.__main__ import Target
    from tools.mutate.runner import _core_only

    target = Target("core/x.py", ("tests/core/test_x.py",), "not postgresql")
    assert target.pytest_args() == ("-k", "not postgresql", "tests/core/test_x.py")
    assert _core_only(target.pytest_args())
    assert not _core_only(("-k", "x", "tests/gui/test_y.py"))
