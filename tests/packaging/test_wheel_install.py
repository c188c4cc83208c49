"""A plain wheel (``pip install .``, not editable) ships ``resources/`` and ``corpora/demo``.

Builds the wheel from a copy of the project (no build isolation, so no network), installs it
with ``--no-deps`` into a fresh virtualenv that sees the shared venv's packages through a
``.pth`` line (the dependencies, never the project: that path is added as a plain entry, so
the editable install's finder in it stays inactive), and runs ``cauterule-gui --self-test``
from that virtualenv: demo import, replay, the bundled model, the window.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
SKIP = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "bundle", "tests",
                              "*.sqlite*")


def _run(args: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source") / "project"
    shutil.copytree(ROOT, source, ignore=SKIP)
    out = source.parent / "wheels"
    done = _run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", str(out),
                 str(source)], cwd=source)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (built,) = out.glob("cauterule_workbench-*.whl")
    return built


def test_the_wheel_holds_the_resources_and_the_demo_corpus(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "cauterule_gui/bundle/resources/labelling-guidelines.md" in names
    assert "cauterule_gui/bundle/resources/icons/hicolor/scalable/apps/cauterule-workbench.svg" in names
    assert "cauterule_gui/bundle/corpora/demo/README.md" in names
    # Alembic reads its environment and revisions as files: a store cannot open without them.
    for name in ("env.py", "script.py.mako", "versions/0001_baseline.py"):
        assert f"core/store/alembic/{name}" in names
    demo = [n for n in names if n.startswith("cauterule_gui/bundle/corpora/demo/") and n.endswith(".jsonl")]
    assert len(demo) == len(list((ROOT / "corpora" / "demo").rglob("*.jsonl")))


def test_the_installed_wheel_passes_its_self_test(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path).returncode == 0
    python = venv / "bin" / "python"
    venv_site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=tmp_path).stdout.strip()
    Path(venv_site, "shared-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    install = _run([str(python), "-m", "pip", "install", "--no-deps", "--quiet", str(wheel)], cwd=tmp_path)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]

    where = _run([str(python), "-c", "import cauterule_gui; print(cauterule_gui.__file__)"], cwd=tmp_path)
    assert where.stdout.strip().startswith(venv_site), where.stdout + where.stderr  # the wheel, not the checkout

    test = _run([str(venv / "bin" / "cauterule-gui"), "--self-test"], cwd=tmp_path, timeout=900)
    assert test.returncode == 0, test.stdout[-4000:] + test.stderr[-4000:]
    assert "self-test passed" in test.stdout
    assert f"bundle {venv_site}/cauterule_gui/bundle" in test.stdout
