"""The run report: per-corpus rates with their denominators, extraction accuracy side by
side, safety on rejection corpora as replay alone decides it (and, separately, what the
oracle override would have said), human-vs-replay agreement -- every number with its floor.

Every rate carries k, n and a Wilson interval; a rate with n = 0 is ``None`` ("not
measured"), never 0.0. The rate's name follows the corpus role: a pass on a rejection
corpus is a *false accept*, a pass on an extraction corpus is an *acceptance*.

Every displayed number is also listed in ``report["metrics"]`` as a
:class:`~core.metrics.ruler.model.MetricWithFloor`; :func:`report_markdown` renders that
list through the type, so a metric without a floor raises instead of being shown.

``build`` makes the report dict, ``metrics`` lists its numbers with their floors, ``markdown``
renders it and ``write`` puts both files in a folder.
"""

from core.report.build import build_report
from core.report.markdown import report_markdown
from core.report.metrics import displayed_metrics, metrics_from_report
from core.report.write import write_report

__all__ = ["build_report", "displayed_metrics", "metrics_from_report", "report_markdown", "write_report"]
