"""Every displayed number of a report as a ``MetricWithFloor`` (a metric without a floor raises)."""

from __future__ import annotations

from typing import Any

from core.metrics.registry import EXTRACTION_METRICS
from core.metrics.ruler.model import Floor, MetricWithFloor, displayed


# -- the displayed metrics: every one with its floor ----------------------------------------
def _floor(d: dict[str, Any] | None) -> Floor | None:
    if d is None:
        return None
    return Floor(d.get("value"), d.get("method", ""), int(d.get("n", 0)), int(d.get("seed", 0)), d.get("note"))

EXTRACTION_PARTS = tuple(m.key for m in EXTRACTION_METRICS)


def withheld_reason(floor: Floor | None) -> str:
    """Why a floor has no value, in words (its note, else its method)."""
    if floor is None:
        return "no floor"
    return floor.note or floor.method or "the floor cannot be measured on this store"


def _shown(key: str, label: str, value: float | None, floor: Floor | None, **extra: Any) -> MetricWithFloor:
    """``displayed``, except that a measured value whose floor cannot be measured (one rule,
    one domain, a tiny store) is withheld with the reason in its label -- never fatal, never
    shown without its floor (docs/ruler.md). Its counts (k, n) stay: they are facts, not a rate."""
    if value is not None and floor is not None and floor.value is None:
        value, label = None, f"{label} (withheld: its floor cannot be measured: {withheld_reason(floor)})"
        extra["ci"] = None
    return displayed(key, label, value, floor, **extra)


def _ci(rate: dict[str, Any]) -> tuple[float, float] | None:
    return None if rate.get("ci_low") is None else (rate["ci_low"], rate["ci_high"])


def displayed_metrics(report: dict[str, Any]) -> list[MetricWithFloor]:
    """Every number the report and the dashboard show, each through ``MetricWithFloor``."""
    out: list[MetricWithFloor] = []
    for name, row in report["corpora"].items():
        rate, dec = row["rate"], row["decisive_rate"]
        out.append(_shown(f"pass_rate@{name}", row["rate_label"], rate["value"], _floor(row.get("rate_floor")),
                             n=rate["n"], k=rate["k"], ci=_ci(rate), denominator=row["rate_denominator"], group=name))
        out.append(_shown(f"decisive_rate@{name}", row["rate_label"] + " (decisive)", dec["value"],
                             _floor(row.get("decisive_floor")), n=dec["n"], k=dec["k"], ci=_ci(dec),
                             denominator=row["decisive_denominator"], group=name))
    for name, acc in report["extraction_accuracy"].items():
        floors = acc.get("floors") or {}
        for part in EXTRACTION_PARTS:
            value = acc[part]
            if isinstance(value, dict):
                out.append(_shown(f"{part}@{name}", part, value["value"], _floor(floors.get(part)), n=value["n"],
                                     k=value["k"], ci=_ci(value), denominator="candidates with an expected_rule",
                                     group=name))
            else:
                out.append(_shown(f"{part}@{name}", part, value, _floor(floors.get(part)), n=acc["n"],
                                     denominator="candidates with an expected_rule (mean)", group=name))
    for name, row in report["safety"]["corpora"].items():
        oracle = row["oracle"]["false_accept_rate"]
        out.append(_shown(f"oracle_false_accept_rate@{name}", "false_accept_rate (oracle override)",
                             oracle["value"], _floor(row.get("floor")), n=oracle["n"], k=oracle["k"], ci=_ci(oracle),
                             denominator="all scored rules; should_reject sources forced to fail", group=name))
    hvr = report["human_vs_replay"]
    agreement, kappa = hvr["agreement"], hvr["kappa"]
    out.append(_shown("human_vs_replay.agreement", "human-vs-replay agreement", agreement["value"],
                         _floor(hvr["floors"]["agreement"]), n=agreement["n"], k=agreement["k"], ci=_ci(agreement),
                         denominator="committed, decisive judgements in blind sessions"))
    out.append(_shown("human_vs_replay.kappa", "Cohen's kappa", kappa["value"], _floor(hvr["floors"]["kappa"]),
                         n=kappa["n"], ci=_ci(kappa), denominator="committed, decisive judgements in blind sessions"))
    for m in (report.get("ruler") or {}).get("metrics", []):
        floor, value, label = _floor(m["floor"]), m["value"], f"{m['label']} on correct rows"
        if value is not None and floor is not None and floor.value is None:
            # A tiny store has too few rows to measure the shuffled floor: withhold the
            # number (a value is never shown without its floor), not the whole report.
            value, label = None, f"{label} (withheld: its floor cannot be measured on {m['n_rows']} rows)"
        out.append(_shown(f"ruler.{m['metric']}", label, value, floor,
                             n=m["n_rows"], denominator="ruler rows built from the store"))
    return out


def metrics_from_report(report: dict[str, Any]) -> list[MetricWithFloor]:
    """Rebuild the displayed metrics from a report's JSON; raises MissingFloorError if one lacks its floor."""
    return [
        displayed(m["key"], m["label"], m["value"], _floor(m.get("floor")), n=m["n"], k=m["k"],
                  ci=None if m["ci_low"] is None else (m["ci_low"], m["ci_high"]), denominator=m["denominator"],
                  group=m["group"])
        for m in report["metrics"]
    ]
