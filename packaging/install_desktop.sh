#!/usr/bin/env bash
# Install the built app for one user (or a prefix) with its desktop integration:
#
#   packaging/install_desktop.sh [PREFIX]          (default PREFIX: ~/.local)
#   packaging/install_desktop.sh --uninstall [PREFIX]
#
# PREFIX/lib/cauterule-workbench/        the one-folder app from packaging/dist/
# PREFIX/bin/cauterule-gui               a symlink to its executable (Exec= in the .desktop file)
# PREFIX/share/applications/             cauterule-workbench.desktop
# PREFIX/share/metainfo/                 io.github.cauterule.Workbench.metainfo.xml
# PREFIX/share/icons/hicolor/            the icon at every size and as SVG
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$HERE")"
UNINSTALL=0
if [ "${1:-}" = "--uninstall" ]; then UNINSTALL=1; shift; fi
PREFIX="${1:-$HOME/.local}"
APP="$HERE/dist/cauterule-workbench"
ICONS=$(cd "$ROOT/resources/icons/hicolor" && find . -name 'cauterule-workbench.*')

if [ "$UNINSTALL" = 1 ]; then
  rm -rf "$PREFIX/lib/cauterule-workbench"
  rm -f "$PREFIX/bin/cauterule-gui" "$PREFIX/share/applications/cauterule-workbench.desktop" \
        "$PREFIX/share/metainfo/io.github.cauterule.Workbench.metainfo.xml"
  for icon in $ICONS; do rm -f "$PREFIX/share/icons/hicolor/$icon"; done
  echo "install_desktop.sh: removed CauterRule Workbench from $PREFIX"
  exit 0
fi

[ -x "$APP/cauterule-gui" ] || { echo "install_desktop.sh: build first: packaging/build.sh" >&2; exit 1; }
mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$PREFIX/share/applications" "$PREFIX/share/metainfo"
rm -rf "$PREFIX/lib/cauterule-workbench"
cp -a "$APP" "$PREFIX/lib/cauterule-workbench"
ln -sfn "$PREFIX/lib/cauterule-workbench/cauterule-gui" "$PREFIX/bin/cauterule-gui"
install -m 644 "$ROOT/resources/cauterule-workbench.desktop" "$PREFIX/share/applications/"
install -m 644 "$ROOT/resources/io.github.cauterule.Workbench.metainfo.xml" "$PREFIX/share/metainfo/"
for icon in $ICONS; do install -D -m 644 "$ROOT/resources/icons/hicolor/$icon" "$PREFIX/share/icons/hicolor/$icon"; done
command -v update-desktop-database >/dev/null && update-desktop-database -q "$PREFIX/share/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$PREFIX/share/icons/hicolor" || true
echo "install_desktop.sh: installed into $PREFIX; start it from the applications menu or with: cauterule-gui"
case ":$PATH:" in *":$PREFIX/bin:"*) ;; *) echo "install_desktop.sh: note: $PREFIX/bin is not on PATH" ;; esac
