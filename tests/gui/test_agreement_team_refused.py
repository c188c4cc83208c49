"""The team page says which entries of an imported team file were refused (a key over the store's
limits) and merges the others; the oversized text itself is never shown."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any

from test_agreement_panel import close_panel, copy_store, demo_template, make_panel  # noqa: F401  (fixture)

from core.domain.labels import LabelText
from core.labels.service import save_label
from core.store.label_repo import LabelRepository

from cauterule_gui.jobs import JobRunner
from cauterule_gui.panels.agreement import TAB_TEAM


def test_the_team_page_names_the_refused_entry_and_merges_the_rest(
        qtbot: Any, tmp_path: Path, demo_template: Path, runner: JobRunner) -> None:  # noqa: F811
    from core.agreement.merge import export_reviewer

    ana_store = copy_store(demo_template, tmp_path / "ana.sqlite")
    bob_store = copy_store(demo_template, tmp_path / "bob.sqlite")
    try:
        pks = {t.trajectory_id: t.id for t in ana_store.corpora.list_trajectories(limit=100)}
        for tid in ("DF-GIT-001-push-non-ff", "DF-GIT-002-hotfix-push-behind"):
            save_label(ana_store.store, pks[tid], "ana", LabelText(f"trigger of {tid}", "pull --rebase"))
        export = tmp_path / "ana.json"
        export_reviewer(ana_store.store, "ana", export)
        payload = json.loads(export.read_text(encoding="utf-8"))
        huge = "".join(random.Random(3).choices(string.ascii_letters, k=10_000))
        payload["labels"][0]["reviewer"] = huge
        export.write_text(json.dumps(payload, indent=2), encoding="utf-8")

        bob = make_panel(qtbot, bob_store, runner, reviewer="bob")
        bob.tabs.setCurrentIndex(TAB_TEAM)
        bob.import_from(export)
        qtbot.waitUntil(lambda: bob.last_merge is not None, timeout=10_000)
        text = bob.merge_label.text()
        assert "Imported: 1 labels" in text
        assert "1 entry refused" in text and "labels[0].reviewer: 10,000 bytes, over the 512-byte limit" in text
        assert huge[:40] not in text  # the oversized value is named by its field, never shown
        assert len(LabelRepository(bob_store.store).labels(reviewer="ana", include_orphans=True)) == 1
        close_panel(qtbot, bob, runner)
    finally:
        ana_store.close()
        bob_store.close()
