#!/usr/bin/env bash
# Acceptance run on the real digits: gmm-train -k 10 --reg-covar 1e-2 on all training images of
# MNIST_DIR must reach clustering accuracy >= 0.53 and NMI >= 0.50 (scikit-learn 1.9.1 with the
# same settings: 0.571 / 0.567), and gmm-predict must score the test split.
set -euo pipefail
bin=${GMM_BIN:-bin}
dir=${MNIST_DIR:?set MNIST_DIR to a directory with the MNIST IDX files}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$bin/gmm-train" "$dir" -k 10 --reg-covar 1e-2 --seed 0 -o "$out/model.bin" --png "$out/means.png" \
  | tee "$out/train.log"
"$bin/gmm-predict" "$out/model.bin" | tee "$out/predict.log"
read -r acc nmi < <(awk '/^accuracy/ {print $2, $4; exit}' "$out/train.log")
read -r tacc tnmi < <(awk '/^accuracy/ {print $2, $4; exit}' "$out/predict.log")
echo "training digits: accuracy $acc NMI $nmi; test digits: accuracy $tacc NMI $tnmi"
awk -v a="$acc" -v n="$nmi" 'BEGIN { if (a < 0.53 || n < 0.50) { print "FAIL: below accuracy 0.53 / NMI 0.50"; exit 1 } print "PASS: accuracy >= 0.53 and NMI >= 0.50" }'
grep -q '^mean log-likelihood' "$out/predict.log"
test -s "$out/means.png"
