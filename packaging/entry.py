"""Entry point of the frozen app (and usable from source: ``python packaging/entry.py``).

- ``--self-test`` goes to ``cauterule_gui.self_test.run_self_test``.
- ``-m MODULE [ARGS]`` runs one of the project's own modules as ``__main__``. The window starts
  helper processes as ``[sys.executable, "-m", "cauterule_gui.replay_server"]``; in a frozen app
  ``sys.executable`` is this program, not a Python interpreter, so it must understand ``-m``.
  Only modules of the project (``cauterule_gui.*``, ``core.*``) are accepted.
- everything else goes to ``cauterule_gui.app.main``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PROJECT_PACKAGES = ("cauterule_gui.", "core.")


def run_module(module: str, args: list[str]) -> int:
    import runpy

    if not module.startswith(PROJECT_PACKAGES):
        print(f"cauterule-gui: -m accepts only the project's modules, not {module!r}", file=sys.stderr)
        return 2
    sys.argv = [module, *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) >= 2 and args[0] == "-m":
        return run_module(args[1], args[2:])
    if "--self-test" in args:
        from cauterule_gui.self_test import run_self_test

        return run_self_test(args)
    if os.environ.get("CAUTERULE_STARTUP_PROBE"):
        import startup_probe  # start-up measurement hook (packaging/measure_startup.py)

        startup_probe.install()
    from cauterule_gui.app import main as app_main

    return app_main(args)


if __name__ == "__main__":
    if not getattr(sys, "frozen", False):
        # From source: make the project importable without installing it (this folder, which
        # holds startup_probe.py, is already on the path as the script's own folder).
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
