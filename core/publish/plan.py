"""What a publish would write into a real CauterRule rule store: the dry run.

The plan is computed from the folder as it is on disk and the Workbench's promotions:

* an approval made in the Workbench that the store does not hold yet becomes a new
  ``R-NNN.yaml`` at the store's top level (its standing id, which must be above every id the
  store holds, ``archived/`` included);
* an imported rule of this store (matched by the file's hash at import) that the Workbench
  retired or superseded is rewritten as CauterRule 0.3.1 rewrites it (core.publish.reference_format);
  so is a rule an earlier publish wrote here;
* each ``index.yaml`` next to a changed or added rule gets that rule's entry refreshed;
* every other file is left alone, byte for byte. ``archived/`` is never written.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from core.decisions.split import tasks_fired
from core.export.rule_store import EXTRACTED_BY, standing_rule_document
from core.loop.views import injection_pool
from core.publish import reference_format as ref
from core.publish.snapshot import hash_folder, owners_by_hash
from core.store.engine import Store
from core.store.promotion_repo import Promotion, PromotionRepository

_NUMBERED = re.compile(r"^R-(\d+)$")
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]+$")
ARCHIVED = "archived"


class PublishRefused(RuntimeError):
    """The publish cannot go ahead; nothing was written. The message says why and what to do."""


@dataclass(frozen=True)
class FileChange:
    path: str  # relative to the store folder, posix
    standing_id: str | None
    rule_id: int | None  # the Workbench rule the file holds (None for an index)
    what: str  # one line: "new rule, active", "active → retired (too vague)", "2 entries refreshed"
    before: str | None  # None for a new file
    after: str

    def diff(self) -> str:
        before = [] if self.before is None else self.before.splitlines(keepends=True)
        return "".join(difflib.unified_diff(before, self.after.splitlines(keepends=True),
                                            fromfile=f"a/{self.path}" if self.before is not None else "/dev/null",
                                            tofile=f"b/{self.path}"))


@dataclass(frozen=True)
class PublishPlan:
    target: Path
    added: tuple[FileChange, ...]
    changed: tuple[FileChange, ...]
    left_alone: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())
    # New active rules whose trigger the injection matcher fires on no task of the store: each
    # needs the publishing reviewer's acknowledgement (core.publish.service).
    no_task: tuple[str, ...] = field(default=())

    @property
    def ids(self) -> list[str]:
        return [c.standing_id for c in (*self.added, *self.changed) if c.standing_id]

    @property
    def empty(self) -> bool:
        return not self.added and not self.changed

    def owners(self) -> dict[str, int]:
        return {c.path: c.rule_id for c in (*self.added, *self.changed) if c.rule_id is not None}

    def writes(self) -> dict[str, str]:
        return {c.path: c.after for c in (*self.added, *self.changed)}


def plan_publish(store: Store, target: Path, owners: Mapping[str, int] | None = None) -> PublishPlan:
    """The dry run for ``target`` as it is now (the caller checks the snapshot and holds the lock).
    ``owners``: file → Workbench rule id as recorded (core.publish.snapshot); files not in it
    are matched to imported rules by their hash."""
    target = Path(target)
    if not target.is_dir():
        raise PublishRefused(f"{target} is not a folder holding a rule store")
    texts = {rel: (target / rel).read_text(encoding="utf-8") for rel in hash_folder(target)}
    mappings = {rel: _load(rel, text) for rel, text in texts.items() if PurePosixPath(rel).stem not in ("index",
                                                                                                         "manifest")}
    ids_on_disk = {str(m.get("id")): rel for rel, m in mappings.items() if m.get("id") is not None}
    highest = max((int(n.group(1)) for i in ids_on_disk if (n := _NUMBERED.match(i))), default=0)
    by_hash = owners_by_hash(store, {rel: digest for rel, digest in hash_folder(target).items() if rel in mappings})
    file_of_rule = {rule_id: rel for rel, rule_id in {**by_hash, **(owners or {})}.items()
                    if rel in mappings and not _archived(rel)}
    promotions = PromotionRepository(store).list()
    by_standing = {p.standing_id: p for p in promotions}

    def store_id(standing_id: str | None) -> str | None:
        """The id a Workbench standing rule has in this store (an imported rule keeps its own)."""
        successor = by_standing.get(standing_id or "")
        if successor is not None and successor.rule_id in file_of_rule:
            return str(mappings[file_of_rule[successor.rule_id]].get("id"))
        return standing_id

    added: list[FileChange] = []
    changed: list[FileChange] = []
    new_docs: dict[str, list[dict[str, Any]]] = {}
    notes: list[str] = []
    for promotion in promotions:
        rel = file_of_rule.get(promotion.rule_id)
        if rel is None and promotion.standing_id in ids_on_disk:
            rel = ids_on_disk[promotion.standing_id]
            if _provenance(mappings[rel]).get("extracted_by") != EXTRACTED_BY or _archived(rel):
                raise PublishRefused(
                    f"{promotion.standing_id} is already in {target} ({rel}) as another rule; the store gained it "
                    "after it was imported: import it again so new ids start above it")
        if rel is not None:
            change = _status_change(promotion, rel, mappings[rel], texts[rel], store_id)
            if change is not None:
                changed.append(change[0])
                new_docs.setdefault(_folder(rel), []).append(change[1])
            elif promotion.status != mappings[rel].get("status"):
                notes.append(f"{promotion.standing_id}: the store says {mappings[rel].get('status')}, the Workbench "
                             f"{promotion.status}; left as the store has it")
            continue
        if promotion.provenance.get("imported"):
            notes.append(f"{promotion.standing_id}: imported from another rule store; not published here")
            continue
        number = _NUMBERED.match(promotion.standing_id)
        if not _SAFE_ID.match(promotion.standing_id) or number is None or int(number.group(1)) <= highest:
            raise PublishRefused(
                f"{promotion.standing_id} is not above every id in {target} (highest R-{highest:03d}); "
                "import the store again so new ids start above it")
        document = standing_rule_document(store, promotion, notes)
        if document.get("superseded_by"):
            document["superseded_by"] = store_id(str(document["superseded_by"]))
        path = f"{promotion.standing_id}.yaml"
        what = f"new rule, {promotion.status}: when={document['when']['trigger']!r} do={document['do']['directive']!r}"
        added.append(FileChange(path, promotion.standing_id, promotion.rule_id, what, None, ref.dump(document)))
        new_docs.setdefault("", []).append(document)
    pool = injection_pool(store) if added else []
    no_task = tuple(c.standing_id for c in added if c.standing_id and c.what.startswith("new rule, active")
                    and tasks_fired(store, *_trigger_of(c), pool=pool) == 0)
    index_changes = _index_changes(target, texts, new_docs, mappings)
    changed.extend(index_changes)
    touched = {c.path for c in (*added, *changed)}
    left = tuple(sorted(rel for rel in texts if rel not in touched))
    return PublishPlan(target, tuple(added), tuple(changed), left, tuple(notes), no_task)


def _trigger_of(change: FileChange) -> tuple[str, tuple[str, ...]]:
    when = yaml.safe_load(change.after)["when"]
    return str(when["trigger"]), tuple(str(c) for c in when.get("context") or ())


def _status_change(promotion: Promotion, rel: str, mapping: Mapping[str, Any], before: str,
                   store_id: Any) -> tuple[FileChange, dict[str, Any]] | None:
    """The file rewritten for a retirement or supersession the store does not have yet."""
    if _archived(rel) or mapping.get("status") != "active" or promotion.status == "active":
        return None
    at = ref.reference_time(promotion.updated_at)
    rule_id = str(mapping.get("id"))
    if promotion.status == "retired":
        reason = promotion.status_reason or "retired in the Workbench"
        after = ref.retired(mapping, at, reason)
        what = f"active → retired ({reason})"
    else:
        successor = store_id(promotion.superseded_by) or str(promotion.superseded_by)
        after = ref.superseded(mapping, at, successor)
        what = f"active → superseded by {successor}"
    return FileChange(rel, rule_id, promotion.rule_id, what, before, ref.dump(after)), after


def _index_changes(target: Path, texts: Mapping[str, str], docs: Mapping[str, list[dict[str, Any]]],
                   mappings: Mapping[str, Mapping[str, Any]]) -> list[FileChange]:
    """Each touched folder's index with the touched rules' entries refreshed. A folder without
    an index gets a complete one (every rule file in it, as published), not the reference's
    index of the touched rules only, which would read as a store that holds nothing else."""
    changes = []
    for folder, rules in sorted(docs.items()):
        rel = f"{folder}/index.yaml" if folder else "index.yaml"
        before = texts.get(rel)
        if before is None:
            touched = {str(r["id"]) for r in rules}
            others = [dict(m) for path, m in sorted(mappings.items())
                      if _folder(path) == folder and m.get("id") is not None and str(m["id"]) not in touched
                      and isinstance(m.get("when"), Mapping) and isinstance(m.get("do"), Mapping)]
            rules = sorted([*others, *rules], key=lambda r: str(r["id"]))
        current = yaml.safe_load(before) if before is not None else None
        if current is not None and not (isinstance(current, dict) and isinstance(current.get("rules"), list)):
            raise PublishRefused(f"{target / rel}: not a CauterRule index (a mapping with a 'rules' list)")
        after = ref.dump(ref.updated_index(current, rules))
        if after != before:
            ids = ", ".join(str(r["id"]) for r in rules)
            what = f"index entries refreshed: {ids}" if before is not None else f"new index of {ids}"
            changes.append(FileChange(rel, None, None, what, before, after))
    return changes


def _load(rel: str, text: str) -> dict[str, Any]:
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise PublishRefused(f"{rel}: not valid YAML ({error.__class__.__name__}); fix or remove it first") from error
    return value if isinstance(value, dict) else {}


def _provenance(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    value = mapping.get("provenance")
    return value if isinstance(value, Mapping) else {}


def _archived(rel: str) -> bool:
    return PurePosixPath(rel).parts[0] == ARCHIVED


def _folder(rel: str) -> str:
    parent = PurePosixPath(rel).parent.as_posix()
    return "" if parent == "." else parent
