"""Publish: bring a real CauterRule rule store up to date with the Workbench's decisions.

``preview(store, target)`` is the dry run (nothing written); ``publish(store, target, actor)``
writes it. Order of a publish, and why:

1. a lead's right on a team store (like export);
2. the folder's publish lock (core.publish.lock) — two publishes to one store are serialised;
3. an interrupted earlier publish is cleaned up (core.export.atomic.recover);
4. the folder is compared with what the import (or the last publish) recorded; a change made
   by someone else meanwhile refuses the publish, naming the files, unless the caller
   accepts it explicitly (``accept_changes``);
5. the plan is built in a staging copy beside the folder (hard links; changed files replaced
   by rename), the files it replaces are copied to ``.NAME.publish-backup/`` (the previous
   backup is dropped: it is kept until the next publish), the new hashes are recorded as
   pending, and the staging folder is swapped in with one atomic exchange — a kill at any
   point leaves the old folder or the new one, never a mix;
6. the snapshot becomes the new folder, the audit log gets a ``publish`` event (target path,
   ids, files) and, in a git work tree, the change is left as an uncommitted diff or
   committed with the given message (only the store's paths).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from core.export.atomic import fsync_dir, recover, staged_folder, write_file_atomic
from core.publish import snapshot
from core.publish.lock import publish_lock
from core.publish.plan import PublishPlan, PublishRefused, plan_publish
from core.store.engine import Store
from core.store.review_repo import append_audit

BACKUP_SUFFIX = ".publish-backup"


@dataclass(frozen=True)
class PublishResult:
    plan: PublishPlan
    written: bool
    disk_change: str  # "" when the folder was as recorded
    git: str  # "" outside a git work tree; else what was done
    backup: Path | None


def check_may_publish(store: Store) -> None:
    from core.team.roles import may_export

    with store.read_session() as session:
        if not may_export(session.connection()):
            raise PublishRefused("only a lead may publish to a rule store from a team store; ask a lead")


def disk_change(store: Store, target: Path) -> snapshot.DiskChange:
    """How ``target`` differs from what was recorded; refuses a folder never imported."""
    recorded = snapshot.load(store, target)
    if recorded is None:
        raise PublishRefused(f"{target} was never imported into this store: run `import {target}` first, so the "
                             "Workbench knows the rules it holds")
    on_disk = snapshot.hash_folder(target)
    if recorded.pending is not None and on_disk == recorded.pending:
        # Our own publish was cut after its swap: what it wrote is the store now.
        snapshot.record(store, target, on_disk, recorded.pending_owners or recorded.owners)
        return snapshot.DiskChange()
    return snapshot.compare(recorded.files, on_disk)


def _recorded_owners(store: Store, target: Path) -> dict[str, int]:
    recorded = snapshot.load(store, target)
    return {} if recorded is None else recorded.owners


def preview(store: Store, target: Path | str, accept_changes: bool = False) -> PublishResult:
    """The dry run: what a publish would add, change and leave alone. Writes nothing."""
    target = Path(target).expanduser().absolute()
    check_may_publish(store)
    change = _checked_change(store, target, accept_changes)
    plan = plan_publish(store, target, _recorded_owners(store, target))
    return PublishResult(plan, False, change.describe(), git_state(target), None)


def publish(store: Store, target: Path | str, actor: str, accept_changes: bool = False,
            commit_message: str | None = None, acknowledge_no_task: Collection[str] = (),
            before_swap: Callable[[], None] | None = None) -> PublishResult:
    """Write the plan into ``target`` (see the module doc). ``acknowledge_no_task``: the new
    rules the reviewer publishes although they fire at injection on no task of the store (each
    refused otherwise; the acknowledgement is in the audit event). ``before_swap`` is for drills."""
    if not actor.strip():
        raise ValueError("a publish needs the reviewer's name")
    target = Path(target).expanduser().absolute()
    check_may_publish(store)
    with publish_lock(target):
        recover(target)
        change = _checked_change(store, target, accept_changes)
        owners = _recorded_owners(store, target)
        plan = plan_publish(store, target, owners)
        if plan.empty:
            return PublishResult(plan, False, change.describe(), git_state(target), None)
        missing = [i for i in plan.no_task if i not in set(acknowledge_no_task)]
        if missing:
            raise PublishRefused(
                f"{', '.join(missing)} fire{'s' if len(missing) == 1 else ''} at injection on no task of this store "
                "(the trigger is a substring of no task): split the rule's sentence, or acknowledge it "
                f"(--acknowledge-no-task {' '.join(missing)})")
        backup = _backup(target, [c.path for c in plan.changed])
        with staged_folder(target, clone="link") as staging:
            for rel, content in plan.writes().items():
                write_file_atomic(staging / rel, content)
            new_owners = {**owners, **plan.owners()}
            snapshot.set_pending(store, target, snapshot.hash_folder(staging), new_owners)
            if before_swap is not None:
                before_swap()
        snapshot.record(store, target, owners=new_owners)
        with store.session() as session:
            append_audit(session, actor, "publish", "rule_store", str(target), reason=commit_message,
                         after={"target": str(target), "ids": plan.ids, "added": [c.path for c in plan.added],
                                "changed": [c.path for c in plan.changed], "disk_change_accepted": change.describe(),
                                "acknowledgement": [f"{actor} acknowledged: {i} fires at injection on no task"
                                                    for i in plan.no_task]})
        git = _git_after(target, plan, commit_message)
    return PublishResult(plan, True, change.describe(), git, backup)


def describe_result(result: PublishResult) -> str:
    """The dry run (or what was done) as text: the CLI prints it (terminal-safe), the window's
    dialog shows it as plain text."""
    plan = result.plan
    lines = [f"{'published to' if result.written else 'publish to'} {plan.target}"]
    if result.disk_change:
        lines.append(f"changed on disk since import, kept: {result.disk_change}")
    lines.append(f"added ({len(plan.added)}):")
    lines += [f"  {c.path}  {c.what}" for c in plan.added]
    lines.append(f"changed ({len(plan.changed)}):")
    for change in plan.changed:
        lines.append(f"  {change.path}  {change.what}")
        lines += [f"    {line}" for line in change.diff().splitlines()]
    lines.append(f"left alone ({len(plan.left_alone)}): {', '.join(plan.left_alone) or '-'}")
    lines += [f"note: {n}" for n in plan.notes]
    lines += [f"gate: {i} fires at injection on no task of this store; publishing it needs --acknowledge-no-task {i}"
              for i in plan.no_task]
    if result.git:
        lines.append(f"git: {result.git}")
    if result.backup is not None:
        lines.append(f"backup of the replaced files: {result.backup}")
    if plan.empty:
        lines.append("the store is up to date: nothing to publish")
    return "\n".join(lines) + "\n"


def _checked_change(store: Store, target: Path, accept_changes: bool) -> snapshot.DiskChange:
    change = disk_change(store, target)
    if change and not accept_changes:
        raise PublishRefused(f"{target} changed on disk since it was imported ({change.describe()}); import it "
                             "again to review against what it holds now, or publish over the changes explicitly")
    return change


def backup_path(target: Path) -> Path:
    return target.parent / f".{target.name}{BACKUP_SUFFIX}"


def _backup(target: Path, paths: list[str]) -> Path:
    """The files this publish replaces, as they are now; the previous publish's backup goes."""
    backup = backup_path(target)
    if backup.exists():
        shutil.rmtree(backup)
    backup.mkdir(parents=True)
    for rel in paths:
        source = target / rel
        if source.is_file():
            (backup / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, backup / rel)
    fsync_dir(backup)
    return backup


def git_state(target: Path) -> str:
    top = _git(target, "rev-parse", "--show-toplevel")
    return "" if top is None else f"in the git work tree {top.strip()}"


def _git_after(target: Path, plan: PublishPlan, message: str | None) -> str:
    state = git_state(target)
    if not state:
        return ""
    if message is None:
        return f"{state}: left as an uncommitted change (commit it, or publish with --commit-message)"
    paths = [str(target / c.path) for c in (*plan.added, *plan.changed)]
    if _git(target, "add", "--", *paths) is None or _git(target, "commit", "-q", "-m", message, "--", *paths) is None:
        return f"{state}: the files are written but `git commit` failed; commit them by hand"
    head = _git(target, "rev-parse", "--short", "HEAD") or "?"
    return f"{state}: committed as {head.strip()}"


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
