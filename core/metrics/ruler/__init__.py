"""Check the ruler: canaries, must-hold perturbations, a k-of-n mutation harness and
shuffled-pairs floors for every comparator the product reports (seed 004).

Pure: no Qt, no store writes. See docs/ruler.md.
"""

from core.metrics.ruler.harness import Comparator, Mutation, PairCanary, Row, SetCanary, check, floor_of
from core.metrics.ruler.model import (
    BLIND_BELOW,
    INJECTED_RATE,
    OVER_SENSITIVE_ABOVE,
    CanaryResult,
    Flag,
    Floor,
    MetricWithFloor,
    MissingFloorError,
    MutationDrop,
    RulerReport,
    RulerSuite,
    displayed,
)
from core.metrics.ruler.suite import check_rows, check_ruler

__all__ = [
    "BLIND_BELOW", "INJECTED_RATE", "OVER_SENSITIVE_ABOVE", "CanaryResult", "Comparator", "Flag", "Floor",
    "MetricWithFloor", "MissingFloorError", "Mutation", "MutationDrop", "PairCanary", "Row", "RulerReport",
    "RulerSuite", "SetCanary", "check", "check_rows", "check_ruler", "displayed", "floor_of",
]
