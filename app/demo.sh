#!/usr/bin/env bash
# `make demo`: installs missing Debian packages (when it can), builds, finds or fetches data,
# trains K = 10 full-covariance components, writes demo-out/model.bin and demo-out/means.png,
# predicts the test split and prints the scores.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
OUT=${DEMO_OUT:-demo-out}
say() { printf 'demo: %s\n' "$*" >&2; }

# the packages (tests/install_deps.sh: the one list, installed through apt-get as root or sudo)
tests/install_deps.sh demo

have_gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then have_gpu=1; fi
# Without a GPU the CUDA backend cannot run: skip compiling it (minutes on two cores).
cuda_flag=()
[ "$have_gpu" = 1 ] || cuda_flag=(CUDA=0)
make -j"$(nproc)" BIN="$BIN" "${cuda_flag[@]}" >/dev/null

has_train() { [ -f "$1/train-images-idx3-ubyte.gz" ] || [ -f "$1/train-images-idx3-ubyte" ]; }
data=""
if [ -n "${MNIST_DIR:-}" ]; then
  has_train "$MNIST_DIR" || { say "MNIST_DIR=$MNIST_DIR has no train-images-idx3-ubyte[.gz]"; exit 1; }
  data=$MNIST_DIR
elif has_train mnist; then
  data=mnist
else
  say "no MNIST found (set MNIST_DIR=...); downloading it into ./mnist"
  if "$BIN/gmm-download-mnist" mnist; then
    data=mnist
  else
    fashion=/usr/share/datasets/fashion-mnist
    if ! has_train "$fashion"; then
      say "falling back to Debian's Fashion-MNIST: installing dataset-fashion-mnist"
      tests/install_deps.sh --packages dataset-fashion-mnist
    fi
    has_train "$fashion" || { say "no data: give MNIST_DIR=DIR with the MNIST IDX files"; exit 1; }
    say "MNIST could not be downloaded: using Fashion-MNIST from $fashion instead"
    data=$fashion
  fi
fi

limit=()
if [ "$have_gpu" = 0 ]; then
  limit=(--limit 20000)
  say "no GPU: training on at most the first 20000 images so that the demo ends in minutes"
fi
mkdir -p "$OUT"
# reg_covar 1e-2: pixel data has constant (always-black) pixels; a larger ridge keeps the
# covariances well conditioned and clusters digits better than scikit-learn's default 1e-6.
"$BIN/gmm-train" "$data" -k 10 --reg-covar 1e-2 "${limit[@]}" -o "$OUT/model.bin" --png "$OUT/means.png"
"$BIN/gmm-predict" "$OUT/model.bin" --out "$OUT/assignments.csv"
say "done: $OUT/model.bin, $OUT/means.png, $OUT/assignments.csv"
