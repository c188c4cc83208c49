"""Ship the bundled data in a plain wheel.

``resources/`` (icons, guidelines, keyboard map, desktop files) and ``corpora/demo`` live at
the project root, where the editable install and the PyInstaller spec read them. A wheel
holds only packages, so the build copies both into ``cauterule_gui/bundle/`` and
``cauterule_gui.self_test.bundle_root()`` finds them there when installed. Everything else
about the build is in ``pyproject.toml``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED = (("resources", "resources"), ("corpora/demo", "corpora/demo"))
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.sqlite", "*.sqlite-*")


class BuildPyWithBundle(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "cauterule_gui" / "bundle"
        for source, name in BUNDLED:
            destination = target / name
            if destination.exists():
                shutil.rmtree(destination)
            shutil.copytree(ROOT / source, destination, ignore=IGNORED)


setup(cmdclass={"build_py": BuildPyWithBundle})
