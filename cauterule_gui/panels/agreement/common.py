"""What the agreement pages share: the tab indices, the judging keys and a session's title."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.domain.agreement import SessionInfo

TAB_NEW, TAB_JUDGE, TAB_RESULTS, TAB_TEAM = range(4)
ANSWER_KEYS = {Qt.Key.Key_1: 0, Qt.Key.Key_2: 1, Qt.Key.Key_3: 2, Qt.Key.Key_4: 3, Qt.Key.Key_5: 4}
NEXT_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)


def session_title(info: SessionInfo) -> str:
    name = f" “{info.name}”" if info.name else ""
    run = f"run #{info.run_id}" if info.run_id is not None else f"imported ({info.origin})"
    old = " · old single question" if info.old_question else ""
    return f"Session {info.id}{name} · {run} · {'blind' if info.blind else 'UNBLINDED'} · {info.size} items{old}"
