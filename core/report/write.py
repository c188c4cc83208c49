"""Write a run's report (JSON and Markdown) to a folder."""

from __future__ import annotations

import json
from pathlib import Path

from core.metrics.ruler.model import DEFAULT_SEED
from core.report.build import build_report, resolve_run
from core.report.markdown import report_markdown
from core.store.engine import Store


# -- report --md --out DIR ------------------------------------------------------------------
def write_report(
    store: Store, run_id: int | None, out_dir: Path, *, semantic: bool | None = None, ruler: bool = True,
    seed: int = DEFAULT_SEED,
) -> Path:
    """Write ``report.md``, ``report.json`` and the figures (PNG and SVG) into ``out_dir``.

    ``semantic``: check the semantic comparators with the embedding model (None: when the
    run was semantic). Returns the path of ``report.md``.
    """
    from core.metrics.ruler import figures
    from core.metrics.ruler.suite import check_ruler

    out_dir = Path(out_dir)
    run = resolve_run(store, run_id)
    suite = None
    if ruler:
        embed, note = None, None
        if semantic if semantic is not None else run.semantic_state == "on":
            from core.replaying import make_embedder

            embed, note = make_embedder(store)
        suite = check_ruler(store, run.id, embed=embed, semantic_note=note, seed=seed)
    report = build_report(store, run.id, ruler=suite, seed=seed)
    from core.export.atomic import staged_folder

    # All files of a report are swapped in together (core.export.atomic): a full disk or a
    # kill halfway leaves the previous report and figures whole, never a mix.
    with staged_folder(out_dir, clone="copy") as staging:
        report["figures"] = figures.write_all(report, staging)
        (staging / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        (staging / "report.md").write_text(report_markdown(report), encoding="utf-8")
    return out_dir / "report.md"
