#!/usr/bin/env bash
# One entry point for people and CI:
#   ./dev.sh run [ARGS...]   set up (first time) and start the Workbench window
#   ./dev.sh test [ARGS...]  set up (first time) and run the test suite
#   ./dev.sh cli [ARGS...]   set up (first time) and run the headless CLI
#   ./dev.sh mutate [MODULE...]  mutation scores of the statistics and verdict modules
#                            (tools/mutate; covering tests in tools/mutate/targets.toml)
# Setup makes .venv, installs the CPU build of torch first (an unpinned torch would pull a
# multi-gigabyte CUDA build), then the project with its test extras. It re-runs only when
# pyproject.toml changes.
set -euo pipefail
cd "$(dirname "$0")"
VENV="${WORKBENCH_VENV:-.venv}"
PY="${PYTHON:-python3}"
STAMP="$VENV/.workbench-installed"

setup() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  local want
  want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
  if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet "torch==2.13.0"
    "$VENV/bin/python" -m pip install --quiet -e '.[test]'
    echo "$want" > "$STAMP"
  fi
}

# The store tests also run against PostgreSQL: a throwaway cluster (initdb + pg_ctl as an
# unprivileged user, Unix socket in a temporary folder, no TCP) for the whole test run, stopped
# on exit. Where the server binaries are missing they are installed from the distribution's
# packages when that is possible (root + apt-get); otherwise the PostgreSQL tests skip with one
# line (or fail, under WORKBENCH_PG=required, as .ci/run sets).
PG_ROOT=""
stop_postgres() {
  if [ -n "$PG_ROOT" ]; then
    "$VENV/bin/python" -m core.team.cluster stop "$PG_ROOT" >/dev/null 2>&1 || true
    rm -rf "$PG_ROOT"
  fi
}
start_postgres() {
  if [ -n "${WORKBENCH_PG_URL:-}" ]; then return 0; fi
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "dev.sh: installing PostgreSQL from the distribution's packages" >&2
      apt-get install -y -qq postgresql >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq postgresql >/dev/null) || true
    fi
  fi
  PG_ROOT="$(mktemp -d /tmp/wbpg-XXXXXX)"
  local url
  if url="$("$VENV/bin/python" -m core.team.cluster start "$PG_ROOT")"; then
    export WORKBENCH_PG_URL="$url"
    trap stop_postgres EXIT
  else
    echo "dev.sh: PostgreSQL tests will skip: $url" >&2
    rm -rf "$PG_ROOT"; PG_ROOT=""
  fi
}

cmd="${1:-run}"
shift || true
setup
case "$cmd" in
  run)  exec "$VENV/bin/cauterule-gui" "$@" ;;
  test) export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
        start_postgres
        if [ "$#" -gt 0 ]; then "$VENV/bin/python" -m pytest "$@"; exit $?; fi
        # The core suite runs with PySide6 made unimportable (the core must not need Qt),
        # then everything else (GUI, shared-corpus, packaging checks) runs normally.
        status=0
        # Lint, the layer contracts and strict types for core/ (pyproject.toml) first; a failure
        # still lets the tests run.
        "$VENV/bin/ruff" check . || status=$?
        "$VENV/bin/lint-imports" || status=$?
        "$VENV/bin/mypy" core || status=$?
        WORKBENCH_BLOCK_QT=1 "$VENV/bin/python" -m pytest -p no:pytest-qt -W ignore::pytest.PytestConfigWarning tests/core || status=$?
        "$VENV/bin/python" -m pytest tests --ignore=tests/core || status=$?
        exit "$status" ;;
  cli)  exec "$VENV/bin/cauterule-workbench" "$@" ;;
  mutate) export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
        exec "$VENV/bin/python" -m tools.mutate "$@" ;;
  setup) ;;
  *) echo "usage: ./dev.sh run|test|cli|mutate|setup [ARGS...]" >&2; exit 2 ;;
esac
