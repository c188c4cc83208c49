"""Desktop integration files and the self-test, from source (fast; no build).

The icon SVG parses and every PNG size exists at the right size; the .desktop file and the
AppStream metainfo name the same program, icon and desktop id as pyproject.toml and the
PyInstaller spec; the self-test passes from source (it loads the model: one test).
"""

from __future__ import annotations

import configparser
import importlib.util
import shutil
import struct
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources"
HICOLOR = RESOURCES / "icons" / "hicolor"
ICON_NAME = "cauterule-workbench"
SIZES = (16, 32, 48, 64, 128, 256, 512)
DESKTOP = RESOURCES / "cauterule-workbench.desktop"
APP_ID = "io.github.cauterule.Workbench"
METAINFO = RESOURCES / f"{APP_ID}.metainfo.xml"
SVG_NS = "{http://www.w3.org/2000/svg}"


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_icon_svg_parses_and_renders(qapp: Any) -> None:
    from PySide6.QtSvg import QSvgRenderer

    svg = HICOLOR / "scalable" / "apps" / f"{ICON_NAME}.svg"
    root = ET.parse(svg).getroot()
    assert root.tag == f"{SVG_NS}svg"
    assert root.get("viewBox") == "0 0 512 512"
    renderer = QSvgRenderer(str(svg))
    assert renderer.isValid()
    assert renderer.defaultSize().width() == renderer.defaultSize().height() == 512


@pytest.mark.parametrize("size", SIZES)
def test_icon_png_exists_at_its_size(size: int) -> None:
    path = HICOLOR / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png"
    assert path.is_file(), f"missing {path}; run python packaging/render_icons.py"
    assert png_size(path) == (size, size)


def test_desktop_file_names_the_gui_entry_point_and_the_icon() -> None:
    entry = desktop_entry()
    for key in ("Type", "Name", "Exec", "Icon", "Categories", "Terminal", "Comment"):
        assert entry.get(key), f"{DESKTOP.name} lacks {key}"
    assert entry["Type"] == "Application" and entry["Terminal"] == "false"
    gui_scripts = pyproject()["project"]["gui-scripts"]
    program = entry["Exec"].split()[0]
    assert program in gui_scripts, f"Exec={program} is not a [project.gui-scripts] entry point"
    assert entry["TryExec"] == program
    assert entry["Icon"] == ICON_NAME == (HICOLOR / "scalable" / "apps" / f"{ICON_NAME}.svg").stem
    spec = (ROOT / "packaging" / "cauterule-workbench.spec").read_text(encoding="utf-8")
    assert f'name="{program}"' in spec, "the frozen executable must carry the Exec name"
    assert entry["Categories"].endswith(";")


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils not installed")
def test_desktop_file_validates() -> None:
    done = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_metainfo_names_the_same_app_desktop_file_and_binaries() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    launchable = root.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    assert root.findtext("name") == desktop_entry()["Name"]
    project = pyproject()["project"]
    binaries = {b.text for b in root.iterfind("provides/binary")}
    assert binaries == set(project["gui-scripts"]) | set(project["scripts"])
    license_ = project["license"]
    assert root.findtext("project_license") == (license_ if isinstance(license_, str) else license_["text"])
    releases = [r.get("version") for r in root.iterfind("releases/release")]
    assert project["version"] in releases, "add a <release> for the version in pyproject.toml"


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstream not installed")
def test_metainfo_validates() -> None:
    done = subprocess.run(["appstreamcli", "validate", "--no-net", str(METAINFO)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_documents_are_shipped_with_the_resources() -> None:
    for name in ("keyboard-map.md", "labelling-guidelines.md"):
        text = (RESOURCES / name).read_text(encoding="utf-8")
        assert text.startswith("# ") and len(text) > 1000


def test_bundled_paths_resolve_from_source() -> None:
    from cauterule_gui import self_test

    assert not self_test.is_frozen()
    assert self_test.bundle_root() == ROOT
    assert (self_test.demo_corpus_path() / "README.md").is_file()
    assert self_test.icon_path().is_file() and self_test.icon_path(256).is_file()


def test_frozen_bundle_root_is_meipass(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cauterule_gui import self_test

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert self_test.bundle_root() == tmp_path
    assert self_test.demo_corpus_path() == tmp_path / "corpora" / "demo"


def _entry_module() -> Any:
    spec = importlib.util.spec_from_file_location("packaging_entry", ROOT / "packaging" / "entry.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_entry_point_dispatches_everything_but_self_test_to_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    import cauterule_gui.app
    import cauterule_gui.self_test

    calls: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(cauterule_gui.app, "main", lambda argv: calls.append(("app", argv)) or 0)
    monkeypatch.setattr(cauterule_gui.self_test, "run_self_test", lambda argv: calls.append(("self", argv)) or 0)
    entry = _entry_module()
    assert entry.main(["--store", "x.sqlite"]) == 0
    assert entry.main(["--self-test", "--screenshot", "s.png"]) == 0
    assert calls == [("app", ["--store", "x.sqlite"]), ("self", ["--self-test", "--screenshot", "s.png"])]


def test_entry_point_runs_only_project_modules_with_dash_m(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frozen app is its own ``sys.executable``: the window's ``-m cauterule_gui.replay_server``
    helper must reach that module, and ``-m`` must not turn the app into a Python interpreter."""
    import runpy

    ran: list[str] = []
    monkeypatch.setattr(runpy, "run_module", lambda module, **_kw: ran.append(module))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    entry = _entry_module()
    assert entry.main(["-m", "cauterule_gui.replay_server"]) == 0
    assert entry.main(["-m", "json.tool"]) == 2
    assert ran == ["cauterule_gui.replay_server"]


@pytest.mark.slow
def test_self_test_passes_from_source(tmp_path: Path) -> None:
    """The whole self-test in a child process, as a user would run it (loads the model)."""
    shot = tmp_path / "self-test.png"
    done = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "entry.py"), "--self-test", "--screenshot", str(shot)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "self-test passed" in done.stdout
    assert "semantic on" in done.stdout
    assert png_size(shot)[0] > 800
