"""The promotion CLI sends back the rule's row version it saw: a script reads `promotions --json`,
decides with `--expected-version`, and is refused (who did what, nothing saved) when another
reviewer decided the rule in between. Runs on both back ends (promotion_store)."""

from __future__ import annotations

import argparse
import json

import pytest
from sqlalchemy import text
from test_promotion_support import Builder, promotion_store  # noqa: F401  (fixtures)

from core.cli.promotion import EXIT_CONFLICT, EXIT_OK, register
from core.promotion import approve
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository


@pytest.fixture()
def queued(promotion_store: Store) -> tuple[Builder, int]:
    b = Builder(promotion_store)
    b.trajectories("F-1")
    rule = b.rule("c/a.yaml", "when git push is rejected", "pull --rebase, then push")
    assert b.run([(rule, "pass", {"prevented": ["F-1"]})]) == 1  # run 1: what approve() below rests on
    return b, rule


def _cli(argv: list[str], store: Store) -> int:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args, store))


def _seen_version(store: Store, rule_id: int, capsys: pytest.CaptureFixture[str]) -> int:
    assert _cli(["promotions", "--no-semantic", "--json"], store) == EXIT_OK
    items = json.loads(capsys.readouterr().out)["items"]
    return int(next(i for i in items if i["rule_id"] == rule_id)["row_version"])


def _decisions(store: Store, rule_id: int) -> list[tuple[str, str]]:
    with store.session() as session:
        rows = session.execute(text("SELECT reviewer, action FROM decision WHERE rule_id = :r ORDER BY id"),
                               {"r": rule_id}).all()
    return [(str(r[0]), str(r[1])) for r in rows]


def test_the_queue_json_carries_the_rules_row_version_and_it_moves_with_a_decision(
    queued: tuple[Builder, int], capsys: pytest.CaptureFixture[str],
) -> None:
    b, rule = queued
    before = _seen_version(b.store, rule, capsys)
    assert _cli(["decide", "defer", "--rule", str(rule), "--reviewer", "ana"], b.store) == EXIT_OK
    capsys.readouterr()
    assert _seen_version(b.store, rule, capsys) == before + 1


def test_a_decision_with_the_version_it_saw_is_saved(queued: tuple[Builder, int],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    b, rule = queued
    seen = _seen_version(b.store, rule, capsys)
    code = _cli(["decide", "reject", "--rule", str(rule), "--reviewer", "ana", "--reason", "too broad",
                 "--expected-version", str(seen), "--json"], b.store)
    assert code == EXIT_OK
    assert json.loads(capsys.readouterr().out)["row_version"] == seen + 1
    assert _decisions(b.store, rule) == [("ana", "reject")]


@pytest.mark.parametrize("action", ["reject", "approve"])
def test_a_decision_on_a_rule_changed_since_is_refused_with_who_did_what(
    queued: tuple[Builder, int], capsys: pytest.CaptureFixture[str], action: str,
) -> None:
    b, rule = queued
    seen = _seen_version(b.store, rule, capsys)  # bo reads the queue ...
    assert _cli(["decide", "defer", "--rule", str(rule), "--reviewer", "ana", "--reason", "ask ops"],
                b.store) == EXIT_OK  # ... ana defers the rule meanwhile ...
    capsys.readouterr()
    code = _cli(["decide", action, "--rule", str(rule), "--run", "1", "--reviewer", "bo", "--reason", "mine",
                 "--expected-version", str(seen), "--json"], b.store)  # ... bo decides on what he saw
    assert code == EXIT_CONFLICT
    captured = capsys.readouterr()
    assert "ana defer (ask ops)" in captured.err and f"version {seen}, now {seen + 1}" in captured.err
    conflict = json.loads(captured.out)["conflict"]
    assert (conflict["by"], conflict["expected_version"], conflict["row_version"]) == ("ana", seen, seen + 1)
    assert _decisions(b.store, rule) == [("ana", "defer")]  # bo's decision was not saved
    assert PromotionRepository(b.store).active_for_rule(rule) is None


@pytest.mark.parametrize("action", ["retire", "supersede"])
def test_a_retire_or_supersede_of_a_rule_retired_since_is_refused_with_who_did_what(
    queued: tuple[Builder, int], capsys: pytest.CaptureFixture[str], action: str,
) -> None:
    b, rule = queued
    standing = approve(b.store, rule, 1, "ana", "fine").promotion.standing_id
    other = b.rule("c/b.yaml", "when the push is rejected again", "fetch, rebase, push")
    run = b.run([(other, "pass", {"prevented": ["F-1"]})])
    successor = approve(b.store, other, run, "ana", "narrower").promotion.standing_id
    seen = _seen_version(b.store, rule, capsys)  # bo reads the queue ...
    assert _cli(["decide", "retire", "--standing", standing, "--reviewer", "ana", "--reason", "obsolete"],
                b.store) == EXIT_OK  # ... ana retires the standing rule meanwhile ...
    capsys.readouterr()
    more = ["--by", successor] if action == "supersede" else []
    code = _cli(["decide", action, "--standing", standing, *more, "--reviewer", "bo", "--reason", "mine",
                 "--expected-version", str(seen), "--json"], b.store)
    assert code == EXIT_CONFLICT
    captured = capsys.readouterr()
    assert f"ana retired {standing} (obsolete)" in captured.err
    assert json.loads(captured.out)["conflict"]["by"] == "ana"
    retired = PromotionRepository(b.store).get(standing)
    assert retired is not None and (retired.status, retired.superseded_by) == ("retired", None)


def test_a_negative_expected_version_is_a_usage_error(queued: tuple[Builder, int],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    b, rule = queued
    with pytest.raises(SystemExit):
        _cli(["decide", "defer", "--rule", str(rule), "--reviewer", "ana", "--expected-version", "-1"], b.store)
    assert "expected a row version (an integer ≥ 0), got '-1'" in capsys.readouterr().err
