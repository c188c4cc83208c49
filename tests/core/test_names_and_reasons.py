"""One check for every reviewer name and reason that enters the store (issue 25 item 3):
control characters, NUL, over-long names and over-long reasons are refused in core, with
the reason in the error, by every service that takes one — and nothing is written."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import text

from core.corpus.limits import MAX_KEY_BYTES
from core.domain.names import MAX_NAME_BYTES, MAX_REASON_BYTES, BadText, checked_name, checked_reason
from core.store.engine import Store, open_store

from tests.drills.stores import build_store


@dataclass(frozen=True)
class Ids:
    run: int
    rule: int
    result: int
    trajectory: int
    session: int
    item: int
    broken_pk: int


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, Ids]]:
    from core.agreement.session import create_session, next_item
    from core.store.replay_repo import ReplayRepository

    root = tmp_path_factory.mktemp("names")
    build_store(root / "s.sqlite", root / "corpus", "A", n=60)
    store = open_store(root / "s.sqlite")
    replays = ReplayRepository(store)
    run = replays.latest_complete_run()
    assert run is not None
    result = replays.results(run.id)[-1]
    session = create_session(store, run.id, "ana", size=4, target_half_width=None, seed=3)
    item = next_item(store, session.id, "ana")
    assert item is not None
    with store.read_session() as db:
        pk = int(db.execute(text("SELECT min(id) FROM trajectory")).scalar_one())
    yield store, Ids(run.id, result.rule_id, result.id, pk, session.id, item.item_id, pk)
    store.close()


def _decide(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.decisions import DecisionRequest, decide

    return decide(store, DecisionRequest("defer", name, rule_id=ids.rule, run_id=ids.run, reason=reason, via="cli"))


def _waiver_in_decide(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.decisions import DecisionRequest, decide

    return decide(store, DecisionRequest("approve", name, rule_id=ids.rule, run_id=ids.run, reason="ok",
                                         override_verdict=True, waivers={"T-1": reason}, via="cli"))


def _waive(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.decisions.waivers import waive

    return waive(store, name, ids.result, ids.broken_pk, reason)


def _label(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.domain.labels import LabelText
    from core.labels.service import save_label

    return save_label(store, ids.trajectory, name, LabelText("when x", "do y"), reason)


def _adjudicate(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.domain.labels import LabelText
    from core.labels.service import adjudicate

    return adjudicate(store, ids.trajectory, name, LabelText("when x", "do y"), reason)


def _judgement(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.agreement.session import commit_judgement

    return commit_judgement(store, ids.item, name, "fires", note=reason)


def _assign(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.agreement.assignments import assign

    return assign(store, ids.session, ["ana", name], 1, "lead")


def _assigned_by(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.agreement.assignments import assign

    return assign(store, ids.session, ["ana", "bo"], 1, name)


def _whatif(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.decisions.whatif import save_whatif_edit

    return save_whatif_edit(store, ids.rule, "when a push is rejected", "fetch first", name, note=reason)


def _candidate(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.loop.candidates import create_candidate

    return create_candidate(store, ids.trajectory, "when a push is rejected", "fetch first", name, because=reason)


def _session(store: Store, ids: Ids, name: str, reason: str) -> object:
    from core.agreement.session import create_session

    return create_session(store, ids.run, name, size=2, target_half_width=None, seed=1)


# (entry point, takes a reason too)
ENTRIES: dict[str, tuple[Callable[[Store, Ids, str, str], object], bool]] = {
    "decide": (_decide, True), "decide waiver": (_waiver_in_decide, True), "waive": (_waive, True),
    "save_label": (_label, True), "adjudicate": (_adjudicate, True), "commit_judgement": (_judgement, True),
    "agreement assign": (_assign, False), "assign by": (_assigned_by, False), "what-if": (_whatif, True),
    "new candidate": (_candidate, True), "create_session": (_session, False),
}
BAD_NAMES = {"escape": ("eve\x1b]0;pwned\x07", "control character (U+001B"), "nul": ("ev\x00e", "NUL"),
             "c1": ("eve\u009b2J", "U+009B"), "newline": ("eve\nmallory", "U+000A"),
             "10 KB": ("e" * 10_000, "10,000 bytes, over the 512-byte limit")}
BAD_REASONS = {"escape": ("why\x1b[2J", "control character (U+001B"), "nul": ("wh\x00y", "NUL"),
               "1 MB": ("y" * 1_000_000, "1,000,000 bytes, over the 16,384-byte limit")}


def _rows(store: Store) -> tuple[int, ...]:
    tables = ("decision", "waiver", "label", "adjudication", "agreement_judgement", "agreement_assignment",
              "rule_version", "agreement_session", "audit_event")
    with store.read_session() as db:
        return tuple(int(db.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()) for t in tables)


@pytest.mark.parametrize("bad", sorted(BAD_NAMES))
@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_a_bad_reviewer_name_is_refused_with_why_and_nothing_is_written(
    built: tuple[Store, Ids], entry: str, bad: str
) -> None:
    store, ids = built
    value, why = BAD_NAMES[bad]
    before = _rows(store)
    with pytest.raises(BadText, match="nothing was saved") as refused:
        ENTRIES[entry][0](store, ids, value, "a fine reason")
    assert why in str(refused.value) and len(str(refused.value)) < 400
    assert _rows(store) == before


@pytest.mark.parametrize("bad", sorted(BAD_REASONS))
@pytest.mark.parametrize("entry", sorted(e for e, (_call, reasons) in ENTRIES.items() if reasons))
def test_a_bad_reason_is_refused_with_why_and_nothing_is_written(
    built: tuple[Store, Ids], entry: str, bad: str
) -> None:
    store, ids = built
    value, why = BAD_REASONS[bad]
    before = _rows(store)
    with pytest.raises(BadText, match="nothing was saved") as refused:
        ENTRIES[entry][0](store, ids, "ana", value)
    assert why in str(refused.value)
    assert _rows(store) == before


def test_names_may_be_as_long_as_the_store_key_and_reasons_span_lines() -> None:
    assert MAX_NAME_BYTES == MAX_KEY_BYTES  # the domain layer keeps its own copy of the key limit
    assert checked_name("  ana  ") == "ana" and checked_name("é" * 256) == "é" * 256
    assert checked_reason("first line\n\tsecond line") == "first line\n\tsecond line"
    assert checked_reason("r" * MAX_REASON_BYTES) is not None and checked_reason("  ") is None
