#!/usr/bin/env bash
# Runs each libFuzzer harness (built by `make fuzz` in $FUZZ_BUILD/fuzz/) for SECONDS seconds, one
# after another, on a working copy of its seed corpus; a crash input goes to
# tests/fuzz/regressions/<target>/ (which `make test` replays) and fails the run. Prints one
# summary line per target: executions, coverage (libFuzzer's cov: edges and ft: features), speed.
# usage: run.sh SECONDS TARGET...
set -u
cd "$(dirname "$0")/../.."
seconds=$1
shift
build=${FUZZ_BUILD:-build-fuzz}
failed=()
summary=()
for t in "$@"; do
  bin=$build/fuzz/fuzz_$t
  work=$build/corpus/$t
  regress=tests/fuzz/regressions/$t
  mkdir -p "$work" "$regress"
  log=$build/fuzz_$t.log
  extra=()
  # the option parsers print usage errors: keep the harness's stdout and stderr closed
  case $t in *_args) extra+=(-close_fd_mask=3) ;; esac
  echo "=== fuzz $t for ${seconds} s"
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$regress/" -print_final_stats=1 "${extra[@]}" \
    "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  speed=$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}')
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
  line="fuzz $t: ${execs:-?} executions in ${seconds} s (${speed:-?} exec/s), cov ${cov:-?} edges, ft ${ft:-?}, corpus ${corp:-?}"
  if [ $rc -ne 0 ]; then
    line="$line: FAILED (exit $rc; crash input in $regress/, log $log)"
    failed+=("$t")
    tail -40 "$log"
  fi
  echo "$line"
  summary+=("$line")
done
echo
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz FAILED: ${failed[*]}"
  exit 1
fi
echo "fuzz: no crash in ${#} targets"
