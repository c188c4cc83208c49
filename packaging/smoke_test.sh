#!/usr/bin/env bash
# Smoke-test the built app: run it offscreen with --self-test (fresh temporary store, demo
# corpus import, replay with the reference-0.3.1 and workbench profiles using the bundled
# model, window rendered) and check that it exits 0.
#
#   packaging/smoke_test.sh [APP_DIR]     (default: packaging/dist/cauterule-workbench)
#
# The app runs from another directory with an empty HOME, a minimal environment and the
# Hugging Face libraries forced offline, so it can only pass on what it bundles. Writes the
# rendered window to packaging/dist/self-test.png.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
APP="$(cd "${1:-$HERE/dist/cauterule-workbench}" && pwd)"
EXE="$APP/cauterule-gui"
[ -x "$EXE" ] || { echo "smoke_test.sh: no built app at $EXE; run packaging/build.sh" >&2; exit 1; }

SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$SCRATCH/home"
LOG="$SCRATCH/self-test.log"
SHOT="$HERE/dist/self-test.png"

start=$(date +%s.%N)
set +e
( cd "$SCRATCH" && env -i PATH=/usr/bin:/bin HOME="$SCRATCH/home" LANG=C.UTF-8 \
    QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
    "$EXE" --self-test --screenshot "$SHOT" ) >"$LOG" 2>&1
code=$?
set -e
end=$(date +%s.%N)
cat "$LOG"

fail() { echo "smoke_test.sh: FAILED: $*" >&2; exit 1; }
[ "$code" -eq 0 ] || fail "the app exited $code"
grep -q "self-test passed" "$LOG" || fail "no 'self-test passed' line"
grep -q "(frozen;" "$LOG" || fail "the self-test did not run frozen"
grep -q "load model    ok .* from $APP/" "$LOG" || fail "the model was not loaded from the bundle"
[ -s "$SHOT" ] || fail "no screenshot at $SHOT"
awk -v s="$start" -v e="$end" -v p="$SHOT" 'BEGIN { printf "smoke_test.sh: passed in %.1f s (screenshot %s)\n", e - s, p }'
