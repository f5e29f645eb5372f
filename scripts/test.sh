#!/usr/bin/env bash
# Runs the whole test suite. pytest's "no tests ran" (exit 5) counts as a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pytest "$@"
status=$?
if [ $status -eq 5 ]; then
  echo "no tests ran: failing" >&2
  exit 1
fi
exit $status
