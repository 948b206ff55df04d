#!/usr/bin/env bash
# Runs every Check suite given on the command line, prints a summary, fails if any failed.
set -u
failed=()
for suite in "$@"; do
  echo "=== $(basename "$suite")"
  if ! "$suite"; then failed+=("$(basename "$suite")"); fi
done
echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED suites: ${failed[*]}"
  exit 1
fi
echo "All ${#} suites passed."
