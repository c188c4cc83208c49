"""Write labels back into a corpus's JSONL: ``expected_rule`` updated, everything else untouched.

Each record is the object exactly as imported (``record_json``, key order and unknown keys
kept). Where a trajectory has a label (adjudicated, else the reviewer's own, else the labels
every reviewer agrees on) its ``expected_rule`` becomes the one-sentence form
``"when <trigger>, <directive>"`` ("" for "no rule expected"); a record that had no
``expected_rule`` key gets it appended. Records whose value does not change are written with
their original text (so a diff of the corpus shows only the relabelled lines); changed ones
are re-serialised like the 0.3.1 writer (one line, ``ensure_ascii=False``).

Not written: lines the importer rejected (they are not in the store) and label variants /
notes (the 0.3.1 format has no field for them; they travel in the team export instead).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from core.corpus.writer import dump_record
from core.domain.labels import label_warnings
from core.export.atomic import staged_folder
from core.export.trajectories import UnknownCorpusError
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store
from core.store.label_repo import LabelRepository

LABEL_SOURCES = ("adjudicated", "label")


@dataclass(frozen=True)
class LabelExportSummary:
    corpus: str
    files: tuple[Path, ...]
    records: int
    replaced: int  # records whose expected_rule value changed
    warnings: tuple[str, ...]  # e.g. a trigger with a comma (0.3.1 would split it there)


def _write_lines(lines: list[str], target: Path) -> None:
    """Atomic: temp file + rename, so a failure never leaves a truncated corpus file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for line in lines:
                handle.write(line + "\n")
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def export_labels(store: Store, corpus: str, out_dir: Path | str, reviewer: str | None = None) -> LabelExportSummary:
    corpora = CorpusRepository(store)
    if corpus not in {c.name for c in corpora.list_corpora()}:
        raise UnknownCorpusError(f"no corpus named {corpus!r} in {store.path}")
    out = Path(out_dir)
    truths = LabelRepository(store).ground_truths(corpus, reviewer)
    by_file: dict[str, list[str]] = defaultdict(list)
    replaced = records = 0
    warnings: list[str] = []
    for detail in corpora.get_trajectories(corpus=corpus):
        records += 1
        data = json.loads(detail.record_json)
        truth = truths.get(detail.id)
        line = None
        if truth is not None and truth.source in LABEL_SOURCES and truth.sentence is not None:
            if truth.text is not None:
                warnings.extend(f"{detail.file}:{detail.line} {detail.trajectory_id}: {w}"
                                for w in label_warnings(truth.text) if "comma" in w)
            if data.get("expected_rule") != truth.sentence or "expected_rule" not in data:
                data["expected_rule"] = truth.sentence
                replaced += 1
                line = dump_record(data)
        if line is None:
            line = _original_line(detail.raw_text, data)
        by_file[detail.file].append(line)
    written: list[Path] = []
    # One swap for the whole folder (core.export.atomic): never half old, half new labels.
    with staged_folder(out, clone="link") as staging:
        for file, lines in sorted(by_file.items()):
            target = staging / file
            if not target.resolve().is_relative_to(staging.resolve()):
                raise ValueError(f"refusing to write outside {out}: {file}")
            _write_lines(lines, target)
            written.append(out / file)
    return LabelExportSummary(corpus, tuple(written), records, replaced, tuple(warnings))


def _original_line(raw_text: str, data: object) -> str:
    """The record's original text when it is one line that still parses to the same object."""
    if "\n" not in raw_text and "\r" not in raw_text:
        try:
            if json.loads(raw_text) == data:
                return raw_text
        except ValueError:
            pass
    return dump_record(data)  # type: ignore[arg-type]
