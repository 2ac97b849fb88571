#!/usr/bin/env bash
# croupier developer entry point. Does all set-up on a fresh machine, then runs the job.
#   ./run.sh serve [ARGS]    run the server (127.0.0.1, default tables; its ledger in ./var)
#   ./run.sh test [ARGS]     ruff, mypy and the whole test suite in 3 worker processes
#                            (installs redis-server, chromium, tmux; CROUPIER_TEST_WORKERS=N)
#   ./run.sh croupier ARGS   any croupier subcommand (scenario, play, loadtest, demo)
set -euo pipefail
cd "$(dirname "$0")"

PY=.venv/bin/python

setup_python() {
  if [ ! -x "$PY" ]; then
    python3 -m venv .venv
  fi
  # Reinstall only when pyproject.toml changed since the last install.
  local stamp=.venv/.croupier-installed
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "run.sh: installing croupier and its dependencies into .venv ..." >&2
    if ! { "$PY" -m pip install -q --upgrade pip && "$PY" -m pip install -q -e '.[dev]'; } \
        >.venv/install.log 2>&1; then
      cat .venv/install.log >&2
      echo "run.sh: installation failed (log above, also in .venv/install.log)" >&2
      exit 1
    fi
    touch "$stamp"
  fi
}

setup_system() {
  # Real services the tests use: Debian's redis-server (pytest-redis starts it), chromium,
  # and tmux (the terminal client's full-screen display is tested in a real terminal).
  local missing=()
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v tmux >/dev/null 2>&1 || missing+=(tmux)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)  # a throwaway CA: Redis over TLS
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
      echo "run.sh: please install: ${missing[*]} (e.g. sudo apt-get install ${missing[*]})" >&2
      exit 1
    fi
  fi
}

cmd=${1:-help}
shift || true
case "$cmd" in
  serve)
    setup_python
    exec .venv/bin/croupier serve "$@"
    ;;
  test)
    setup_python
    setup_system
    .venv/bin/ruff check .
    .venv/bin/ruff format --check .
    .venv/bin/mypy
    set +e
    # the suite in worker processes, a test file to each (its servers mostly wait on sockets
    # and timers: three workers fit two cores), the files with slow tests first
    # (tests/conftest.py); CROUPIER_TEST_WORKERS=0 runs it in one
    workers=${CROUPIER_TEST_WORKERS:-3}
    if [ "$workers" = 0 ]; then
      "$PY" -m pytest "$@"
    else
      "$PY" -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
    fi
    rc=$?
    set -e
    if [ "$rc" = 5 ]; then
      echo "run.sh: pytest collected no tests: that is a failure" >&2
      exit 1
    fi
    exit "$rc"
    ;;
  croupier)
    setup_python
    exec .venv/bin/croupier "$@"
    ;;
  *)
    sed -n '2,7p' "$0"
    exit 2
    ;;
esac
