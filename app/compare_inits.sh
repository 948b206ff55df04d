#!/usr/bin/env bash
# Compares the initialisations: gmm-train with --init kmeans, k-means++ and knn, seeds 0..4 each,
# on one data set, and prints a markdown table per run (init, seed, final lower bound, iterations,
# converged, training accuracy, NMI, seconds of fitting) and a summary per init (mean ± sample
# standard deviation of the lower bound, iterations, accuracy and NMI).
#
#   app/compare_inits.sh DATA_DIR [extra gmm-train options]
#   e.g. app/compare_inits.sh mnist --limit 2000 --max-iter 5
#        BIN=build-gpu/bin app/compare_inits.sh mnist --device gpu
#
# Environment: BIN (the programs, default bin), INITS (default "kmeans k-means++ knn"), SEEDS
# (default "0 1 2 3 4"), LOG_DIR (keep each run's output there; default: a temporary directory,
# removed). The numbers are parsed from gmm-train's summary lines. Exits 1 when a run failed.
set -euo pipefail
BIN=${BIN:-bin}
INITS=${INITS:-kmeans k-means++ knn}
SEEDS=${SEEDS:-0 1 2 3 4}

if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  [ $# -lt 1 ] && exit 1 || exit 0
fi
data=$1
shift
if [ ! -x "$BIN/gmm-train" ]; then
  echo "compare_inits: error: $BIN/gmm-train not found (build it, or set BIN)" >&2
  exit 1
fi
if [ ! -e "$data" ]; then
  echo "compare_inits: error: $data: no such file or directory" >&2
  exit 1
fi
if [ -n "${LOG_DIR:-}" ]; then
  work=$LOG_DIR
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# One run's numbers from its output: lower bound, iterations, converged, accuracy, NMI, seconds.
parse() {
  awk '
    /^(NOT )?converged in [0-9]+ iterations/ {
      conv = ($1 == "converged") ? "yes" : "no"
      iters = (conv == "yes") ? $3 : $4
      for (i = 1; i <= NF; i++) {
        if ($i == "fitting") secs = $(i - 2)
        if ($i == "bound") lb = $(i + 1)
      }
    }
    /^accuracy [0-9.]+ +NMI / { acc = $2; nmi = $4 }
    END {
      if (lb == "") exit 1
      printf "%s %s %s %s %s %s\n", lb, iters, conv, (acc == "" ? "-" : acc), (nmi == "" ? "-" : nmi), secs
    }' "$1"
}

failed=0
results=$work/results.txt
: > "$results"
echo "| init | seed | lower bound | iterations | converged | accuracy | NMI | seconds |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for init in $INITS; do
  for seed in $SEEDS; do
    log=$work/$init-seed$seed.txt
    if "$BIN/gmm-train" "$data" --init "$init" --seed "$seed" -q --png '' \
        -o "$work/$init-seed$seed.bin" "$@" > "$log" 2>&1 && line=$(parse "$log"); then
      read -r lb iters conv acc nmi secs <<< "$line"
      echo "| $init | $seed | $lb | $iters | $conv | $acc | $nmi | $secs |"
      echo "$init $lb $iters $acc $nmi" >> "$results"
    else
      failed=1
      why=$(grep -m1 'error:' "$log" || tail -n1 "$log")
      echo "| $init | $seed | failed: ${why//|/\\|} | | | | | |"
    fi
    rm -f "$work/$init-seed$seed.bin"
  done
done

echo
echo "| init | runs | lower bound | iterations | accuracy | NMI |"
echo "| --- | --- | --- | --- | --- | --- |"
for init in $INITS; do
  awk -v init="$init" '
    function cell(col,   m, v, i) {
      if (n[col] == 0) return "-"
      m = s[col] / n[col]
      v = 0
      for (i = 1; i <= n[col]; i++) v += (x[col, i] - m) ^ 2
      v = n[col] > 1 ? sqrt(v / (n[col] - 1)) : 0
      return sprintf(col == 1 ? "%.2f ± %.2f" : col == 2 ? "%.1f ± %.1f" : "%.4f ± %.4f", m, v)
    }
    $1 == init {
      runs++
      for (c = 1; c <= 4; c++) if ($(c + 1) != "-") { n[c]++; s[c] += $(c + 1); x[c, n[c]] = $(c + 1) }
    }
    END { printf "| %s | %d | %s | %s | %s | %s |\n", init, runs, cell(1), cell(2), cell(3), cell(4) }
  ' "$results"
done
[ -n "${LOG_DIR:-}" ] && echo && echo "each run's output is in $LOG_DIR/"
exit $failed
