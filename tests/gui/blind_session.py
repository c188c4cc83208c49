"""A blind agreement session made through the window, as the Agreement tab makes it (a write of
kind ``agreement``), for the tests of "blind means blind" in the rest of the window."""

from __future__ import annotations

from typing import Any

from core.agreement.session import create_session
from core.store.agreement_repo import AgreementRepository


def hide_a_session(qtbot: Any, window: Any, size: int = 8) -> frozenset[str]:
    """Make the session and wait until the window hides its rules; their origins."""
    rule = window.workspace.rules.current_rule()
    assert rule is not None
    made: list[Any] = []
    window.db.op(lambda s: create_session(s.store, rule.run_id, "lead", size=size, seed=11), made.append,
                 kinds={"agreement"}, name="test session")
    qtbot.waitUntil(lambda: bool(made), timeout=10_000)
    origins = frozenset(i.rule_origin for i in AgreementRepository(window.services.store).items_with_answers(made[0].id))
    qtbot.waitUntil(lambda: window.rule_model.blind == origins, timeout=10_000)
    return origins
