"""Render the application icon's PNG sizes from its SVG with QtSvg (PySide6-Essentials).

    python packaging/render_icons.py            # rewrite the PNGs
    python packaging/render_icons.py --check    # exit 1 if a PNG is missing or has the wrong size

The SVG (``resources/icons/hicolor/scalable/apps/cauterule-workbench.svg``) is the source; the
PNGs are committed so neither the frozen app nor a desktop install needs QtSvg at run time.
The folders follow the freedesktop icon theme layout (``hicolor/<N>x<N>/apps/<name>.png``), so
a desktop install copies ``resources/icons/hicolor`` into ``share/icons/`` as it is.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICON_NAME = "cauterule-workbench"
HICOLOR = ROOT / "resources" / "icons" / "hicolor"
SVG = HICOLOR / "scalable" / "apps" / f"{ICON_NAME}.svg"
PNG_DIR = HICOLOR
SIZES = (16, 32, 48, 64, 128, 256, 512)


def png_path(size: int, folder: Path = PNG_DIR) -> Path:
    return folder / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png"


def render(svg: Path = SVG, folder: Path = PNG_DIR, sizes: tuple[int, ...] = SIZES) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: {svg} is not a valid SVG for QtSvg")
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        target = png_path(size, folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.convertToFormat(QImage.Format.Format_ARGB32).save(str(target), "PNG"):
            raise SystemExit(f"render_icons: could not write {target}")
        written.append(target)
    return written


def check(folder: Path = PNG_DIR) -> list[str]:
    from PySide6.QtGui import QImage

    problems = []
    for size in SIZES:
        image = QImage(str(png_path(size, folder)))
        if image.isNull():
            problems.append(f"missing or unreadable: {png_path(size, folder)}")
        elif (image.width(), image.height()) != (size, size):
            problems.append(f"{png_path(size, folder)} is {image.width()}x{image.height()}, want {size}x{size}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only check the PNGs, write nothing")
    args = parser.parse_args(argv)
    if args.check:
        problems = check()
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    for path in render():
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
