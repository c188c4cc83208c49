"""Export the store's standing rules as a CauterRule 0.3.1 rule store folder.

Layout: one ``R-NNN.yaml`` per promotion (every status, so ``superseded_by`` always points
at a file in the folder) plus ``index.yaml`` in the 0.3.1 shape (a mapping with one key,
``rules``). YAML is written with ``yaml.safe_dump`` keeping key order and Unicode. Each file
is written to a temporary file in the same folder and moved into place (``os.replace``), so
a reader never sees half a rule.

A hidden manifest (``.workbench-export.json``, ignored by CauterRule, which loads only
``*.yaml``/``*.yml``) marks a folder as ours: exporting again into it replaces the previous
export; a non-empty folder without it is refused, so a real rule store is never overwritten.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from core.export.atomic import export_lock, recover, staged_folder, write_file_atomic
from core.store.engine import Store
from core.store.promotion_repo import Promotion, PromotionRepository
from core.store.rule_repo import RuleRepository
from core.timeutil import utc_now

MANIFEST = ".workbench-export.json"
EXTRACTED_BY = "cauterule-workbench"
FORMAT = "cauterule-0.3.1-rule-store"
DEFAULT_CONFIDENCE = 0.5  # the reference's own default for a candidate without one
_RULE_ID = re.compile(r"^[A-Za-z0-9_-]+$")


class RuleStoreExportError(RuntimeError):
    """The export cannot be written where asked; nothing was changed."""


@dataclass(frozen=True)
class ExportResult:
    out_dir: Path
    files: tuple[Path, ...]
    rules: int
    notes: tuple[str, ...]


def export_rule_store(store: Store, out_dir: Path | str, include_imported: bool = False) -> ExportResult:
    """``include_imported`` (``export-rules --all``): the complete set a team deploys as a fresh
    folder — the imported standing rules the Workbench never changed, as imported (in the
    reference's own file format), beside every promotion; retired and superseded as they are."""
    _check_may_export(store)
    out = Path(out_dir).expanduser()
    promotions = PromotionRepository(store).list()
    notes: list[str] = []
    documents = [(p.standing_id, standing_rule_document(store, p, notes)) for p in promotions]
    if include_imported:
        documents += imported_rule_documents(store, {p.rule_id for p in promotions}, {i for i, _d in documents}, notes)
    for standing_id, _document in documents:
        if not _RULE_ID.match(standing_id):
            raise RuleStoreExportError(f"refusing to write rule id {standing_id!r}: not a safe file name")
    written: list[Path] = []
    # The lock spans the check of the folder and the swap: another export into the same
    # folder waits, so neither builds on (or cleans up) the other's half-finished state.
    with export_lock(out):
        previous = _check_target(out)
        _write_staged(store, out, documents, previous, written)
    return ExportResult(out, tuple(written), len(documents), tuple(notes))


def _write_staged(store: Store, out: Path, documents: list[tuple[str, dict[str, Any]]], previous: set[str],
                  written: list[Path]) -> None:
    # Built in a staging copy and swapped in whole (core.export.atomic): a kill leaves the
    # previous complete export (or nothing, the first time), never a mix or a half folder.
    with staged_folder(out, clone="link") as staging:
        for standing_id, document in documents:
            write_file_atomic(staging / f"{standing_id}.yaml", _dump(document))
            written.append(out / f"{standing_id}.yaml")
        write_file_atomic(staging / "index.yaml", _dump(index_document([d for _i, d in documents])))
        written.append(out / "index.yaml")
        names = {p.name for p in written}
        for stale_name in sorted(previous - names):
            with contextlib.suppress(FileNotFoundError):
                (staging / stale_name).unlink()
        manifest = {"format": FORMAT, "tool": EXTRACTED_BY, "exported_at": utc_now(), "store": str(store.path),
                    "files": sorted(names)}
        write_file_atomic(staging / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def _check_may_export(store: Store) -> None:
    """On a team store only leads export a rule store (the server's roles say who is one)."""
    from core.team.roles import may_export

    with store.read_session() as session:
        if not may_export(session.connection()):
            raise RuleStoreExportError("only a lead may export the rule store of a team store; ask a lead")


def _check_target(out: Path) -> set[str]:
    """Names written by the previous export here (empty for a new folder); refuse anything else."""
    recover(out)  # an interrupted export's staging folder is not a previous export
    if out.exists() and not out.is_dir():
        raise RuleStoreExportError(f"{out} exists and is not a folder")
    if not out.exists():
        return set()
    entries = [e for e in out.iterdir() if not e.name.startswith(".")]
    manifest_path = out / MANIFEST
    if not manifest_path.is_file():
        if entries or any(e.name == ".quarantine" for e in out.iterdir()):
            raise RuleStoreExportError(
                f"{out} is not empty and is not a previous Workbench export (no {MANIFEST}); "
                "choose an empty or new folder — an existing rule store is never overwritten"
            )
        return set()
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        previous = {str(name) for name in manifest["files"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise RuleStoreExportError(f"{manifest_path} is unreadable ({error}); choose another folder") from error
    foreign = sorted(e.name for e in entries if e.name not in previous)
    if foreign:
        raise RuleStoreExportError(
            f"{out} holds files the previous export did not write ({', '.join(foreign[:5])}); "
            "refusing to mix them with a new export — choose an empty folder"
        )
    return previous


def standing_rule_document(store: Store, promotion: Promotion, notes: list[str] | None = None) -> dict[str, Any]:
    """The StandingRule mapping for one promotion, in the 0.3.1 field order."""
    rules = RuleRepository(store)
    rule = rules.get(promotion.rule_id)
    version = rules.get_version(promotion.rule_version_id)
    if rule is None or version is None:
        raise RuleStoreExportError(f"{promotion.standing_id}: its rule is no longer in the store")
    data = _imported_data(store, promotion.rule_id)
    imported_prov: Mapping[str, Any] = data["provenance"] if isinstance(data.get("provenance"), Mapping) else {}
    when: dict[str, Any] = {"trigger": version.trigger}
    if version.context:
        when["context"] = list(version.context)
    if version.signature is not None and version.signature.strip():
        when["signature"] = version.signature
    do: dict[str, Any] = {"directive": version.directive}
    if version.because is not None and version.because.strip():
        do["because"] = version.because
    confidence = version.confidence
    if confidence is None:
        confidence = DEFAULT_CONFIDENCE
        if notes is not None:
            notes.append(f"{promotion.standing_id}: rule has no confidence; wrote {DEFAULT_CONFIDENCE}")
    evidence = promotion.evidence
    buckets = evidence.get("buckets", {})
    source = (promotion.provenance.get("source_trajectory") or rule.source_trajectory
              or f"workbench-rule-{promotion.rule_id}")
    provenance: dict[str, Any] = {
        "source_trajectory": str(source),
        "extracted_by": EXTRACTED_BY,
        "extract_timestamp": str(imported_prov.get("extract_timestamp") or version.created_at)
        if version.version == 1 else version.created_at,
        "extraction_pass": _extraction_pass(data, imported_prov),
        # CauterRule needs numbers here; an unmeasured rate (null in the store) is written 0.0.
        "replay_evidence": {
            "failures_prevented": list(buckets.get("prevented", [])),
            "successes_broken": list(buckets.get("broken", [])),
            "precision": _rate(evidence.get("precision")),
            "recall": _rate(evidence.get("recall")),
        },
        "promotion_mode": "human",
    }
    document: dict[str, Any] = {
        "id": promotion.standing_id,
        "when": when,
        "do": do,
        "confidence": float(confidence),
        "provenance": provenance,
        "status": promotion.status,
        "promoted_at": promotion.created_at,
        "hit_count": 0,
    }
    tags = data.get("tags")
    if isinstance(tags, list) and tags and all(isinstance(t, str) and t.strip() for t in tags):
        document["tags"] = list(tags)
    for key in ("taxonomy", "template"):
        if isinstance(data.get(key), str) and data[key].strip():
            document[key] = data[key]
    if promotion.status in ("retired", "superseded"):
        document["retired_at"] = promotion.updated_at
        if promotion.status_reason:
            document["retirement_reason"] = promotion.status_reason
    if promotion.status == "superseded" and promotion.superseded_by:
        document["superseded_by"] = promotion.superseded_by
    return document


def imported_rule_documents(store: Store, adopted: set[int], taken: set[str],
                            notes: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Imported standing rules with no promotion, each as the reference writes its file back
    (an edit made in the Workbench replaces when / do). A rule whose id another rule already
    has here (two imported stores both hold R-001) is left out with a note."""
    from core.publish.reference_format import normalized_rule

    documents = []
    for info in RuleRepository(store).list_rules(kinds=["standing"]):
        if info.id in adopted:
            continue
        data = dict(_imported_data(store, info.id))
        rule_id = str(data.get("id") or info.rule_ref or "")
        if not rule_id or rule_id in taken or "status" not in data:
            notes.append(f"{info.origin}: imported rule {rule_id or '(no id)'} left out "
                         f"({'its id is taken by another rule' if rule_id in taken else 'no id or status'})")
            continue
        latest = info.latest
        data["when"] = {**(data.get("when") or {}), "trigger": latest.trigger}
        if latest.context:
            data["when"]["context"] = list(latest.context)
        if latest.signature:
            data["when"]["signature"] = latest.signature
        data["do"] = {**(data.get("do") or {}), "directive": latest.directive}
        if latest.because:
            data["do"]["because"] = latest.because
        taken.add(rule_id)
        documents.append((rule_id, normalized_rule(data)))
    return documents


def _imported_data(store: Store, rule_id: int) -> dict[str, Any]:
    """The rule file's mapping as imported (tags, taxonomy, original provenance), or {}."""
    return PromotionRepository(store).rule_data(rule_id)


def _extraction_pass(data: Mapping[str, Any], provenance: Mapping[str, Any]) -> int:
    for value in (provenance.get("extraction_pass"), data.get("extraction_pass")):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
    return 1


def _rate(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and 0.0 <= float(value) <= 1.0 else 0.0


def index_document(documents: list[dict[str, Any]]) -> dict[str, Any]:
    """``index.yaml`` in the 0.3.1 shape (``IndexManager.update_entry``'s entry fields)."""
    entries = []
    for d in documents:
        entry: dict[str, Any] = {
            "id": d["id"],
            "status": d["status"],
            "summary": f"when={d['when']['trigger']!r} do={d['do']['directive']!r}",
            "tags": list(d.get("tags", [])),
            "hit_count": d.get("hit_count", 0),
            "last_match": d.get("last_match"),
            "pack": d.get("pack"),
        }
        if d.get("taxonomy") is not None:
            entry["taxonomy"] = d["taxonomy"]
        entries.append(entry)
    return {"rules": entries}


def _dump(document: Any) -> str:
    return str(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))

