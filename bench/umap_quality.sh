#!/usr/bin/env bash
# The cluster quality of gmm-train --space umap (its defaults, no other flag) on one data set:
# for each seed, gmm-train on the training split (accuracy, NMI, seconds) and gmm-predict on the
# test split (accuracy with the matching stored at training, accuracy with one fitted on the test
# labels); then the mean. Also checks that training twice with one seed writes the same file.
#
#   bench/umap_quality.sh DATA_DIR [DEVICE (auto)] [SEEDS (0 1 2)] [-- extra gmm-train options]
#
# Runs in a temporary directory; GMM_BIN names the programs' directory (default bin).
set -eu
data=$(cd "$1" && pwd); device=${2:-auto}; seeds=${3:-"0 1 2"}
shift $(( $# < 3 ? $# : 3 )); [ "${1:-}" = -- ] && shift
bin=$(cd "${GMM_BIN:-bin}" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
printf '%-5s %9s %7s %8s %12s %11s\n' seed train_acc nmi train_s test_stored test_fitted
sum=$(mktemp)
for s in $seeds; do
  t0=$(date +%s.%N)
  "$bin/gmm-train" "$data" --space umap --device "$device" --seed "$s" -q -o "m$s.bin" \
      --png '' --map "map$s.png" "$@" > "train$s.txt" 2>&1 || { cat "train$s.txt"; exit 1; }
  t1=$(date +%s.%N)
  "$bin/gmm-predict" "m$s.bin" --device "$device" --map '' > "test$s.txt" 2>&1 || { cat "test$s.txt"; exit 1; }
  read -r acc nmi < <(grep -m1 '^accuracy' "train$s.txt" | awk '{print $2, $4}')
  fitted=$(grep -m1 '^accuracy .* NMI' "test$s.txt" | awk '{print $2}')
  stored=$(grep -m1 'matching stored at training' "test$s.txt" | awk '{print $2}')
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')
  printf '%-5s %9s %7s %8.2f %12s %11s\n' "$s" "$acc" "$nmi" "$secs" "$stored" "$fitted"
  echo "$acc $nmi $secs $stored $fitted" >> "$sum"
done
awk '{a+=$1; n+=$2; t+=$3; s+=$4; f+=$5; c++} END {printf "%-5s %9.4f %7.4f %8.2f %12.4f %11.4f\n", "mean", a/c, n/c, t/c, s/c, f/c}' "$sum"
first=${seeds%% *}
"$bin/gmm-train" "$data" --space umap --device "$device" --seed "$first" -q -o again.bin \
    --png '' --map "again.png" "$@" > /dev/null 2>&1
cmp -s "m$first.bin" again.bin && echo "seed $first twice: the same model file" \
  || echo "seed $first twice: the model files DIFFER"
if [ -n "${OUT_MAPS:-}" ]; then mkdir -p "$OUT_MAPS"; cp map*.png train*.txt test*.txt "$OUT_MAPS"/; fi
