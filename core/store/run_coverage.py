"""Which replay run is "the last complete picture" of a store, for the report and the Metrics tab.

A run replays either every rule (a full run) or a chosen few (``replay --rule 5``, Ctrl+R on a
rule, a What-if). A run of a few rules is ``complete`` too, but its numbers describe only those
rules: a report read from it would give pass rates for one rule and floors that cannot be
measured (a floor mismatches triggers across rules). So the report and the metrics read the
newest complete run that covered every rule, and name the newer partial runs they leave out.

How a run says what it covered: :func:`core.replaying.run_replay` writes
``config["rule_selection"]`` (``{"rules": "all" | [ids], "expected_rules": bool}``). Runs saved
before that key existed are judged by their size: such a run is partial when an earlier
complete run scored more rules (a one-rule run after a full one), and full otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.store.replay_repo import ReplayRepository, RunInfo

ALL_RULES = "all"


def rule_selection(rule_ids: Sequence[int] | None, include_expected_rules: bool) -> dict[str, Any]:
    """What a run was asked to replay, as stored in its config."""
    return {"rules": ALL_RULES if rule_ids is None else sorted(int(i) for i in rule_ids),
            "expected_rules": bool(include_expected_rules)}


def covers_every_rule(run: RunInfo, earlier_complete: Sequence[RunInfo] = ()) -> bool:
    """True when ``run`` replayed every rule of the store (not a chosen few)."""
    selection = run.config.get("rule_selection")
    if isinstance(selection, dict):
        return selection.get("rules") == ALL_RULES
    return all(run.results >= other.results for other in earlier_complete)  # a run saved before the marker


@dataclass(frozen=True)
class ReportRun:
    """The run a report reads, and what the reader should know about that choice."""

    run: RunInfo
    covers_every_rule: bool
    newer_partial: tuple[RunInfo, ...]  # complete runs of a few rules, newer than ``run``, not in its numbers
    chosen: bool  # True: the caller named the run; False: picked as the last complete picture

    def describe(self) -> str:
        """One line: which run was read and why (shown above the numbers)."""
        rules = f"{self.run.results} rule{'s' if self.run.results != 1 else ''}"
        if self.chosen:
            head = f"run #{self.run.id} as asked ({rules}"
            head += ")" if self.covers_every_rule else ", a run of chosen rules only)"
        elif self.covers_every_rule:
            head = f"run #{self.run.id}, the newest complete run of every rule ({rules})"
        else:
            head = (f"run #{self.run.id} ({rules}): no complete run of every rule exists, so the newest complete "
                    "run is read and covers only its rules")
        if self.newer_partial:
            newer = ", ".join(f"#{r.id} ({r.results} rule{'s' if r.results != 1 else ''})" for r in self.newer_partial)
            head += f"; newer runs of chosen rules are not in these numbers: {newer}"
        return head

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run.id, "covers_every_rule": self.covers_every_rule, "chosen": self.chosen,
                "newer_partial_runs": [{"id": r.id, "rules": r.results} for r in self.newer_partial],
                "description": self.describe()}


def report_run(store: Any, run_id: int | None = None) -> ReportRun | None:
    """The run to report on: ``run_id`` if given (None when it does not exist), else the newest
    complete run of every rule, else the newest complete run (None when there is no complete run)."""
    runs = ReplayRepository(store).runs()  # newest first
    complete = [r for r in runs if r.status == "complete"]
    full = {r.id: covers_every_rule(r, [o for o in complete if o.id < r.id]) for r in complete}
    if run_id is not None:
        run = next((r for r in runs if r.id == run_id), None)
        if run is None:
            return None
        return ReportRun(run, full.get(run.id, False), (), chosen=True)
    if not complete:
        return None
    run = next((r for r in complete if full[r.id]), complete[0])
    newer = tuple(r for r in complete if r.id > run.id and not full[r.id])
    return ReportRun(run, full[run.id], newer, chosen=False)
