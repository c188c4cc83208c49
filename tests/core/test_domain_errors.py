"""One domain error hierarchy: the store's refusals are core.domain classes, one per meaning."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_labels_support import Builder, labels_store  # noqa: F401  (fixture)

from core.domain import errors
from core.domain.labels import LabelText
from core.labels.service import adjudicate as adjudicate_label
from core.store.engine import Store
from core.store.label_repo import LabelRepository


def test_every_refusal_is_a_domain_error_and_keeps_its_builtin_base() -> None:
    builtin = {
        errors.ReasonRequired: ValueError, errors.ApprovalRefused: ValueError, errors.BrokenNotOpened: ValueError,
        errors.PromotionError: ValueError, errors.UnknownTrajectory: LookupError, errors.UnknownSession: LookupError,
        errors.AlreadyCommitted: ValueError, errors.NotYetCommitted: PermissionError,
    }
    for cls, base in builtin.items():
        assert issubclass(cls, errors.DomainError) and issubclass(cls, base), cls.__name__


def test_an_adjudication_without_a_reason_raises_the_one_reason_required(labels_store: Store) -> None:  # noqa: F811
    (pk,) = Builder(labels_store).trajectories("T1")
    with pytest.raises(errors.ReasonRequired, match="an adjudication needs a reason"):
        adjudicate_label(labels_store, pk, "lead", LabelText("when x", "do y"), "  ")


def test_an_unknown_trajectory_is_a_domain_lookup_error(labels_store: Store) -> None:  # noqa: F811
    with pytest.raises(errors.UnknownTrajectory, match="no trajectory #999"):
        LabelRepository(labels_store).key_of(999)


def test_the_store_defines_no_refusal_classes_of_its_own() -> None:
    store_dir = Path(__file__).resolve().parents[2] / "core" / "store"
    for name in ("ReasonRequired", "ApprovalRefused", "PromotionError", "UnknownTrajectory", "UnknownSession"):
        defined = [p.name for p in store_dir.glob("*.py") if f"class {name}(" in p.read_text(encoding="utf-8")]
        assert defined == [], name
