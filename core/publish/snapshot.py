"""What a rule store folder held when it was imported (or last published), to notice when
someone changed it meanwhile.

Kept in the store's ``setting`` table (no table of its own), one entry per rule store folder,
keyed by the folder's absolute path: every ``*.yaml`` / ``*.yml`` file under it (hidden
entries skipped, as the importer skips them) with its SHA-256. A publish records the hashes it
is about to write as ``pending`` before it swaps the folder in and makes them the snapshot
after: a kill between the swap and that second write leaves a folder that equals ``pending``,
which is then taken as ours, not as someone else's change.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from core.hashing import sha256_bytes, sha256_text
from core.store.engine import Store
from core.store.tables import RuleRow, SettingRow
from core.timeutil import utc_now

KEY_PREFIX = "publish.snapshot:"
RULE_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Snapshot:
    root: str
    files: dict[str, str]
    recorded_at: str
    # File → the Workbench rule it holds (an imported standing rule, or a published approval):
    # kept here because a file's hash stops matching its imported rule once a publish rewrites it.
    owners: dict[str, int] = field(default_factory=dict)
    pending: dict[str, str] | None = None
    pending_owners: dict[str, int] | None = None


@dataclass(frozen=True)
class DiskChange:
    """How a folder differs from its snapshot; empty when it does not."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.modified)

    def describe(self) -> str:
        parts = [f"{label}: {', '.join(names[:8])}{' …' if len(names) > 8 else ''}"
                 for label, names in (("added", self.added), ("removed", self.removed), ("modified", self.modified))
                 if names]
        return "; ".join(parts)


def folder_key(root: Path) -> str:
    return KEY_PREFIX + sha256_text(str(Path(root).resolve()))


def hash_folder(root: Path) -> dict[str, str]:
    """``{relative posix path: sha256}`` of every rule YAML file under ``root`` (hidden skipped)."""
    root = Path(root)
    found: dict[str, str] = {}
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            path = Path(folder) / name
            if name.startswith(".") or not name.lower().endswith(RULE_SUFFIXES) or not path.is_file():
                continue
            found[path.relative_to(root).as_posix()] = sha256_bytes(path.read_bytes())
    return dict(sorted(found.items()))


def record(store: Store, root: Path, files: dict[str, str] | None = None, owners: dict[str, int] | None = None,
           pending: dict[str, str] | None = None, pending_owners: dict[str, int] | None = None) -> None:
    """Remember ``files`` (default: the folder as it is now) as what ``root`` holds, and which
    Workbench rule each file is (default: imported standing rules matched by their file's hash)."""
    root = Path(root).resolve()
    files = hash_folder(root) if files is None else files
    owners = owners_by_hash(store, files) if owners is None else owners
    value = {"root": str(root), "files": files, "owners": owners, "recorded_at": utc_now(),
             "pending": pending, "pending_owners": pending_owners}
    _save(store, folder_key(root), value)


def set_pending(store: Store, root: Path, pending: dict[str, str], pending_owners: dict[str, int]) -> None:
    current = load(store, root)
    files, owners = ({}, {}) if current is None else (current.files, current.owners)
    record(store, root, files, owners, pending, pending_owners)


def load(store: Store, root: Path) -> Snapshot | None:
    with store.read_session() as session:
        row = session.get(SettingRow, folder_key(root))
        if row is None:
            return None
        value = json.loads(row.value_json)
    pending, pending_owners = value.get("pending"), value.get("pending_owners")
    return Snapshot(str(value["root"]), dict(value["files"]), str(value["recorded_at"]),
                    {str(k): int(v) for k, v in (value.get("owners") or {}).items()},
                    None if pending is None else dict(pending),
                    None if pending_owners is None else {str(k): int(v) for k, v in pending_owners.items()})


def owners_by_hash(store: Store, files: dict[str, str]) -> dict[str, int]:
    """File → imported standing rule whose file had exactly these bytes at import."""
    by_hash: dict[str, list[str]] = {}
    for rel, digest in files.items():
        by_hash.setdefault(digest, []).append(rel)
    found: dict[str, int] = {}
    with store.read_session() as session:
        rows = session.exec(select(RuleRow).where(RuleRow.kind == "standing",
                                                  col(RuleRow.content_hash).in_(list(by_hash)))).all()
        for row in sorted(rows, key=lambda r: r.id or 0):
            assert row.id is not None
            for rel in by_hash[row.content_hash]:
                found.setdefault(rel, row.id)
    return dict(sorted(found.items()))


def compare(recorded: dict[str, str], on_disk: dict[str, str]) -> DiskChange:
    return DiskChange(
        added=tuple(sorted(set(on_disk) - set(recorded))),
        removed=tuple(sorted(set(recorded) - set(on_disk))),
        modified=tuple(sorted(n for n in set(recorded) & set(on_disk) if recorded[n] != on_disk[n])),
    )


def record_rule_stores(store: Store, roots: list[Path], rule_files: list[Path]) -> None:
    """After an import: a snapshot of each rule store folder the import read rules from.

    A rule store folder is the highest folder (within an import root) that directly holds a
    rule or an ``index.yaml``; its ``archived/`` and pack subfolders belong to it."""
    folders = {p.resolve().parent for p in rule_files}
    tops = {f for f in folders if not any(parent in folders for parent in f.parents)}
    resolved_roots = [Path(r).resolve() for r in roots]
    for folder in sorted(tops):
        if any(folder == r or r in folder.parents for r in resolved_roots):
            record(store, folder)


def _save(store: Store, key: str, value: dict[str, Any]) -> None:
    text = json.dumps(value, ensure_ascii=False)
    with store.session() as session:
        row = session.get(SettingRow, key)
        if row is None:
            session.add(SettingRow(key=key, value_json=text))
        else:
            row.value_json = text
