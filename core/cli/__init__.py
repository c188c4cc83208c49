"""``cauterule-workbench``, the headless command line (console script ``core.cli:main``).

``commands.py`` builds the parser, opens the store and runs the store-wide commands (import,
export, corpora, replay, report); each subsystem keeps its own subcommands in one module that
``register``s them: ``agreement.py``, ``promotion.py``, ``ruler.py``, ``loop.py``.
``python -m core.cli`` runs ``main`` too (``__main__.py``).
"""

from __future__ import annotations

from core.cli.commands import main

__all__ = ["main"]
