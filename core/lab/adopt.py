"""Adoption: one setting of a lab report becomes a named, versioned profile of the store (docs/lab.md).

The report is ``LabResult.to_dict()`` (``lab --out DIR`` writes it as ``report.json``; the Lab
tab holds it in memory). A setting is named by its name in the report, by its 1-based row
number there, or as ``chosen:TRUTH`` (the lab's choice under that truth). The setting is rebuilt
from its fields and must give the same name back, so a report written by other code is refused
rather than adopted as something else.

**Tuned on all data.** A setting the lab chose under a truth was chosen on that truth's tuning
part only: the profile keeps that truth's split and is not marked. Any other setting was picked
by a person who saw every figure, the held-back ones included: it is marked
``tuned_on_all_data`` (its held-back figures are no longer a test of it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from core.domain.errors import DomainError
from core.lab.settings import Setting
from core.replay.profiles import ReplayProfile
from core.store.engine import Store
from core.store.profile_repo import ProfileRepository, StoredProfile


class BadLabReport(DomainError, ValueError):
    """The report or the setting named in it cannot be adopted; the message says why."""


@dataclass(frozen=True)
class Candidate:
    """What adopting a report's setting would store."""

    setting: str
    profile: ReplayProfile
    chosen_for: str | None  # the truth whose choice it is (None: picked by hand)
    split: dict[str, Any] | None
    tuned_on_all_data: bool

    def describe(self, name: str, current: str) -> str:
        """One paragraph: what adopting it changes (the Lab tab's confirmation, the CLI's output)."""
        how = (f"the lab's choice under {self.chosen_for}, tuned on its tuning part" if self.chosen_for
               else "picked by hand from every figure: it will be marked tuned on all data")
        return (f"Adopting stores setting \"{self.setting}\" as the next version of profile \"{name}\" ({how}) "
                f"and makes it the store's adopted profile in place of {current}. Replays that name no profile "
                "then run it; approvals made under another profile are flagged for a second look. "
                "Nothing already stored is changed.")


def _setting_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = report.get("settings")
    if not isinstance(rows, list) or not rows:
        raise BadLabReport("lab report: no 'settings' list (expected the report.json that `lab --out` writes)")
    return rows


def candidate(report: dict[str, Any], setting_id: str) -> Candidate:
    """The setting ``setting_id`` names in ``report``, rebuilt as a replay profile."""
    rows = _setting_rows(report)
    choices = report.get("choices") or {}
    chosen_for: str | None = None
    wanted = setting_id.strip()
    if wanted.startswith("chosen:"):
        truth = wanted.split(":", 1)[1]
        choice = choices.get(truth)
        if not isinstance(choice, dict) or not choice.get("chosen"):
            raise BadLabReport(f"lab report: no chosen setting under truth {truth!r} "
                               f"(truths with a choice: {', '.join(t for t, c in choices.items() if c.get('chosen'))})")
        wanted, chosen_for = str(choice["chosen"]), truth
    if wanted.isdigit():
        index = int(wanted)
        if not 1 <= index <= len(rows):
            raise BadLabReport(f"lab report: setting row {index} does not exist (1-{len(rows)})")
        row = rows[index - 1]
    else:
        found = [r for r in rows if r.get("name") == wanted]
        if not found:
            raise BadLabReport(f"lab report: no setting named {wanted!r} (use its exact name, its row number, "
                               "or chosen:TRUTH)")
        row = found[0]
    setting = setting_from_row(row)
    if chosen_for is None:
        chosen_for = next((t for t, c in choices.items() if isinstance(c, dict) and c.get("chosen") == setting.name),
                          None)
    model_id = (report.get("scores") or {}).get("model_id")
    splits = report.get("splits") or {}
    return Candidate(setting=setting.name, profile=setting.profile(model_id if setting.semantic else None),
                     chosen_for=chosen_for, split=splits.get(chosen_for) if chosen_for else None,
                     tuned_on_all_data=chosen_for is None)


def setting_from_row(row: dict[str, Any]) -> Setting:
    names = {f.name for f in dataclasses.fields(Setting)}
    try:
        setting = Setting(**{k: v for k, v in row.items() if k in names})
    except TypeError as error:
        raise BadLabReport(f"lab report: setting {row.get('name')!r} cannot be rebuilt: {error}") from None
    if row.get("name") is not None and setting.name != row["name"]:
        raise BadLabReport(f"lab report: setting {row['name']!r} rebuilds as {setting.name!r} "
                           "(a report from another version of the lab: run it again)")
    return setting


def adopt_from_report(store: Store, report: dict[str, Any], setting_id: str, name: str, actor: str,
                      note: str | None = None) -> StoredProfile:
    """Store the setting as the next version of ``name`` with its report, and adopt it (one transaction)."""
    chosen = candidate(report, setting_id)
    return ProfileRepository(store).add(
        name, chosen.profile, actor, lab_report=report, lab_setting=chosen.setting, split=chosen.split,
        tuned_on_all_data=chosen.tuned_on_all_data, note=note)
