"""The what-if edit rule (core.decisions.save_whatif_edit): decided in core, inside its transaction."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.decisions import WhatIfRefused, save_whatif_edit
from core.importing import import_paths
from core.replaying import materialise_expected_rules
from core.store.engine import Store, open_store
from core.store.review_repo import ReviewRepository
from core.store.rule_repo import RuleRepository

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    opened = open_store(tmp_path / "s.sqlite")
    import_paths(opened, [DEMO])
    materialise_expected_rules(opened)
    yield opened
    opened.close()


def _first_rule(store: Store) -> tuple[int, str, str]:
    info = RuleRepository(store).list_rules()[0]
    return info.id, info.latest.trigger, info.latest.directive


def test_a_changed_trigger_becomes_a_new_version_with_its_audit_event(store: Store) -> None:
    rule_id, _trigger, directive = _first_rule(store)
    edit = save_whatif_edit(store, rule_id, "when the owls sing", directive, "ana")
    assert edit.changed and edit.version == 2 and edit.label == f"what-if rule {rule_id} v2"
    assert [v.version for v in RuleRepository(store).versions(rule_id)] == [1, 2]
    assert [e.action for e in ReviewRepository(store).rule_audit(rule_id)] == ["edit_rule"]


def test_an_unchanged_text_writes_nothing(store: Store) -> None:
    rule_id, trigger, directive = _first_rule(store)
    edit = save_whatif_edit(store, rule_id, trigger, directive, "ana")
    assert not edit.changed and edit.label.endswith("v1 (unchanged)")
    assert [v.version for v in RuleRepository(store).versions(rule_id)] == [1]


@pytest.mark.parametrize(("trigger", "directive", "author", "why"), [
    ("  ", "do b", "ana", "the trigger is empty"),
    ("when a", "", "ana", "the directive is empty"),
    ("when a", "do b", " ", "a reviewer name is needed"),
])
def test_a_blank_field_is_refused_by_name(store: Store, trigger: str, directive: str, author: str, why: str) -> None:
    rule_id, _t, _d = _first_rule(store)
    with pytest.raises(WhatIfRefused, match=why):
        save_whatif_edit(store, rule_id, trigger, directive, author)
    assert [v.version for v in RuleRepository(store).versions(rule_id)] == [1]


def test_an_unknown_rule_is_refused_with_its_id(store: Store) -> None:
    with pytest.raises(WhatIfRefused, match="rule 99999 does not exist"):
        save_whatif_edit(store, 99999, "when a", "do b", "ana")
