"""On a team store publishing is a lead's right (issue 28 item 6), like exporting the rule
store, and the audit log records it with the store path and the ids."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_roles import as_login

from core.importing import import_paths
from core.promotion import approve, retire
from core.publish.plan import PublishRefused
from core.publish.service import publish
from core.store.engine import open_store
from core.store.review_repo import ReviewRepository
from core.team.roles import add_reviewer

from tests.core.test_promotion_support import Builder
from tests.drills.publish_kills import RULE


@pytest.fixture()
def team(pg_server, tmp_path: Path) -> Iterator[dict[str, object]]:  # type: ignore[no-untyped-def]
    url = pg_server.new_database()
    rules = tmp_path / "rules"
    rules.mkdir()
    for number, trigger in ((1, "when git push is rejected"), (2, "when pytest cannot import")):
        (rules / f"R-00{number}.yaml").write_text(RULE.format(id=f"R-00{number}", trigger=trigger, directive="fix it"))
    owner = open_store(url)
    import_paths(owner, [rules])
    b = Builder(owner)
    b.trajectories("F-1", "F-2")
    rule = b.rule("c/new.yaml", "t", "wait for the lock, then retry")  # "t" is every Builder task: it fires
    approve(owner, rule, b.run([(rule, "pass", {"prevented": ["F-1", "F-2"]})]), "owner", "reviewed")
    retire(owner, "R-001", "owner", "too broad")
    owner.close()
    for name, lead in (("rita", False), ("leo", True)):
        add_reviewer(url, name, lead=lead)
    yield {"url": url, "rules": rules}
    pg_server.drop(url)


def test_only_a_lead_publishes_and_the_audit_log_names_the_store_and_the_ids(team: dict[str, object]) -> None:
    rules = Path(str(team["rules"]))
    before = {p.name: p.read_bytes() for p in rules.iterdir()}
    rita = open_store(as_login(str(team["url"]), "rita"))
    with pytest.raises(PublishRefused, match="only a lead may publish"):
        publish(rita, rules, "rita")
    rita.close()
    assert {p.name: p.read_bytes() for p in rules.iterdir()} == before

    leo = open_store(as_login(str(team["url"]), "leo"))
    publish(leo, rules, "leo")
    [event] = ReviewRepository(leo).audit(target_kind="rule_store")
    assert (event.actor, event.target_id) == ("leo", str(rules.absolute()))
    assert event.after["ids"] == ["R-003", "R-001"]
    leo.close()
