"""The mutation operators: every single small change the mutator makes to a module.

Each mutant is one change to one AST node; ``mutants(source)`` lists them all in a stable
order, and ``apply(source, mutant)`` returns the module's source with that one change.
A mutant is named by ``key`` (function, the original code and the change), not by its line,
so the reviewed list of equivalent mutants survives edits elsewhere in the file.

Not mutated, on purpose: docstrings, type annotations, decorators, imports, the text of
f-strings and the message of a ``raise`` (wording, not arithmetic; the tests that check a
message match its gist). Everything else a wrong number could come from is: comparisons and
their boundaries, arithmetic, ``and``/``or``, ``not``, unary minus, ``any``/``all`` and
``min``/``max``, numeric/boolean/string constants, return values, and deleting a statement.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass

# Each comparison is flipped at its boundary (< to <=) or negated (== to !=).
_COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
_BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div, ast.Mod: ast.Mult, ast.Pow: ast.Mult,
}
_NAME_SWAPS = {"any": "all", "all": "any", "min": "max", "max": "min"}
_SIMPLE_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Continue, ast.Break)


@dataclass(frozen=True)
class Mutant:
    index: int  # position in the module's walk (which node)
    variant: int  # which change of that node
    line: int
    scope: str  # qualified name of the enclosing function or class ("<module>" at the top)
    change: str  # e.g. "`raters < 2` -> `raters <= 2`"

    @property
    def key(self) -> str:
        return f"{self.scope} :: {self.change}"


def _skipped_nodes(tree: ast.Module) -> set[int]:
    """ids of nodes (and their descendants) that are never mutated."""
    skip: set[int] = set()

    def drop(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.JoinedStr)):
            drop(node)
        elif isinstance(node, ast.Raise):
            drop(node.exc)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            drop(node.returns)
            for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs,
                        node.args.vararg, node.args.kwarg]:
                if arg is not None:
                    drop(arg.annotation)
            for decorator in node.decorator_list:
                drop(decorator)
        elif isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                drop(decorator)
        elif isinstance(node, ast.AnnAssign):
            drop(node.annotation)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                drop(body[0])  # the docstring
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            drop(node)
    return skip


def _scopes(tree: ast.Module) -> dict[int, str]:
    scope_of: dict[int, str] = {}

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = child.name if scope == "<module>" else f"{scope}.{child.name}"
            scope_of[id(child)] = inner
            visit(child, inner)

    visit(tree, "<module>")
    return scope_of


def _short(node: ast.AST, limit: int = 70) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _constant_variants(value: object) -> list[bool | int | float | str]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1]
    if isinstance(value, float):
        return [0.0 if value else 1.0]
    if isinstance(value, str):
        return [f"XX{value}XX"]
    return []


def _variants(node: ast.AST) -> list[ast.AST]:
    """Every replacement node for ``node`` (each one mutant)."""
    out: list[ast.AST] = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            swap = _COMPARE_SWAPS.get(type(op))
            if swap is not None:
                new = copy.deepcopy(node)
                new.ops[i] = swap()
                out.append(new)
    elif isinstance(node, (ast.BinOp, ast.AugAssign)):
        swap_op = _BINOP_SWAPS.get(type(node.op))
        if swap_op is not None:
            new_op = copy.deepcopy(node)
            new_op.op = swap_op()
            out.append(new_op)
    elif isinstance(node, ast.BoolOp):
        new_bool = copy.deepcopy(node)
        new_bool.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        out.append(new_bool)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        out.append(copy.deepcopy(node.operand))
    elif isinstance(node, ast.Name) and node.id in _NAME_SWAPS and isinstance(node.ctx, ast.Load):
        out.append(ast.Name(id=_NAME_SWAPS[node.id], ctx=ast.Load()))
    elif isinstance(node, ast.Constant):
        out.extend(ast.Constant(value=v) for v in _constant_variants(node.value))
    elif isinstance(node, ast.Return) and node.value is not None and not (
        isinstance(node.value, ast.Constant) and node.value.value is None
    ):
        out.append(ast.Return(value=ast.Constant(value=None)))
    if isinstance(node, _SIMPLE_STATEMENTS) and not (isinstance(node, ast.AnnAssign) and node.value is None):
        out.append(ast.Pass())
    return out


def _in_context(parent: ast.AST, old: ast.AST, new: ast.AST) -> str:
    """``parent`` rendered with ``old`` swapped for ``new`` (then swapped back)."""
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            try:
                return _short(parent)
            finally:
                setattr(parent, field, old)
        if isinstance(value, list) and any(item is old for item in value):
            position = next(i for i, item in enumerate(value) if item is old)
            value[position] = new
            try:
                return _short(parent)
            finally:
                value[position] = old
    return _short(new)


def _describe(old: ast.AST, new: ast.AST, parent: ast.AST | None) -> str:
    """Readable change; a bare constant or name is shown inside its enclosing expression."""
    if isinstance(new, ast.Pass):
        return f"delete `{_short(old)}`"
    if isinstance(old, (ast.Constant, ast.Name)) and isinstance(parent, ast.expr):
        return f"`{_short(parent)}` -> `{_in_context(parent, old, new)}`"
    return f"`{_short(old)}` -> `{_short(new)}`"


def _walk(tree: ast.Module) -> Iterator[tuple[int, ast.AST]]:
    skip = _skipped_nodes(tree)
    for index, node in enumerate(ast.walk(tree)):
        if id(node) not in skip:
            yield index, node


def mutants(source: str) -> list[Mutant]:
    tree = ast.parse(source)
    scopes = _scopes(tree)
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[Mutant] = []
    seen: dict[str, int] = {}
    for index, node in _walk(tree):
        for variant, new in enumerate(_variants(node)):
            change = _describe(node, new, parents.get(id(node)))
            scope = scopes.get(id(node), "<module>")
            # The same change twice in one function (rare) is told apart by its occurrence.
            count = seen.get(f"{scope} :: {change}", 0)
            seen[f"{scope} :: {change}"] = count + 1
            if count:
                change = f"{change} (#{count + 1})"
            found.append(Mutant(index, variant, getattr(node, "lineno", 0), scope, change))
    return sorted(found, key=lambda m: m.line)


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, replacement: ast.AST) -> None:
        self.target = target
        self.replacement = replacement

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if node is self.target:
            return ast.copy_location(self.replacement, node)
        return super().generic_visit(node)


def apply(source: str, mutant: Mutant) -> str:
    """The module's source with ``mutant``'s one change (re-generated from the AST)."""
    tree = ast.parse(source)
    for index, node in _walk(tree):
        if index == mutant.index:
            replacement = _variants(node)[mutant.variant]
            new_tree = _Replace(node, replacement).visit(tree)
            return ast.unparse(ast.fix_missing_locations(new_tree))
    raise LookupError(f"no node {mutant.index} in this source")
