"""A writer process for the concurrency drills: ``python writer_worker.py STORE NAME N``.

Saves N reviewer actions (alternating label saves and rule decisions, each a read-then-write
unit of work) through the repositories, counts failures and prints one JSON line
``{"ok": n, "errors": n, "first_error": str|null}``. Run two of these at once on one store.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from core.domain.labels import LabelText
    from core.labels.service import save_label
    from core.store.engine import open_store
    from core.store.review_repo import write_decision
    from core.store.rule_repo import RuleRepository

    store_path, name, count = Path(argv[0]), argv[1], int(argv[2])
    store = open_store(store_path)
    with store.read_session() as session:
        from sqlalchemy import text

        pks = [int(r[0]) for r in session.execute(text("SELECT id FROM trajectory ORDER BY id"))]
    rules = [(r.id, r.latest.id) for r in RuleRepository(store).list_rules()]
    ok = errors = 0
    first_error: str | None = None
    for i in range(count):
        try:
            if i % 2 == 0 or not rules:
                save_label(store, pks[i % len(pks)], name, LabelText(f"when {name} step {i}", f"do {i}"))
            else:
                rule_id, version_id = rules[i % len(rules)]
                # A raw decision row (the drill measures concurrent writers, not the approval rules).
                with store.session() as session:
                    write_decision(session, rule_id, version_id, None, name, "defer" if i % 4 == 1 else "approve",
                                   None, None)
            ok += 1
        except Exception as error:  # the drill counts every failure, whatever it is
            errors += 1
            first_error = first_error or f"{type(error).__name__}: {error}"
    store.close()
    print(json.dumps({"ok": ok, "errors": errors, "first_error": first_error}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
