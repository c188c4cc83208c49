"""The labelling list filters in SQL: missing / labelled / no ground truth / domain."""

from __future__ import annotations

from test_labels_support import import_demo, labels_store, pk_of  # noqa: F401  (fixture)

from core.domain.labels import LabelFilter, LabelText
from core.labels.service import save_label
from core.store.engine import Store
from core.store.label_repo import LabelRepository


def test_filters(labels_store: Store) -> None:
    import_demo(labels_store)
    repo = LabelRepository(labels_store)
    git = pk_of(labels_store, "DF-GIT-001-push-non-ff")
    save_label(labels_store, git, "ana", LabelText("git push is rejected as non-fast-forward", "pull --rebase, then push"))
    save_label(labels_store, pk_of(labels_store, "DS-GIT-001-status-clean"), "bo", LabelText("", ""))

    total = repo.count_queue("ana", LabelFilter(corpus="failures"))
    assert total == 23
    assert repo.count_queue("ana", LabelFilter(corpus="failures", status="labelled")) == 1
    assert repo.count_queue("ana", LabelFilter(corpus="failures", status="missing")) == 22
    mine = repo.queue("ana", LabelFilter(corpus="failures", status="labelled"))
    assert [r.trajectory_pk for r in mine] == [git]
    assert mine[0].my_label == "when git push is rejected as non-fast-forward, pull --rebase, then push"

    git_rows = repo.queue("ana", LabelFilter(domain="git"))
    assert len(git_rows) == 9 and {r.domain for r in git_rows} == {"git"}  # 4 + 3 + 1 + DA-001
    assert repo.count_queue("ana", LabelFilter(domain="git", status="labelled")) == 1
    # Successes have expected_rule "" and no label, except the one Bo labelled "no rule".
    assert repo.count_queue("ana", LabelFilter(corpus="successes", status="no_ground_truth")) == 11
    page = repo.queue("ana", LabelFilter(corpus="failures"), offset=20, limit=10)
    assert len(page) == 3
