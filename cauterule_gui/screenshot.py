"""What ``--screenshot`` shows on a store with replay results: the Review tab with a rule
that has both kinds of evidence, and one of its matched trajectories open."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.workspace_query import WorkspaceFilter, WorkspaceScope

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow


def show_review_example(window: MainWindow) -> None:
    services = window.services
    if services is None:
        return
    window.show_review()
    window.resize(max(window.width(), 1600), max(window.height(), 1000))
    rules = window.workspace.rules
    rules.model.fetch_all()
    candidates = services.results.list_rules(WorkspaceScope(), WorkspaceFilter(), window.identity.name,
                                               order_by="prevented", descending=True, limit=50)
    # Prefer a rule whose evidence has both prevented and broken rows: it shows the most.
    chosen = next((r for r in candidates if r.prevented_n and r.broken_n), candidates[0] if candidates else None)
    if chosen is None:
        rules.select_row(0)
    else:  # a member of a collapsed duplicate group is selected when its group's rows arrive
        rules.select_rule(chosen.rule_id, not_found=lambda: rules.select_row(0))
    window.workspace.evidence.set_bucket("prevented", auto_open=True)
