#!/usr/bin/env bash
# `make demo`: installs missing Debian packages (when it can), builds, finds or fetches data,
# trains K = 10 full-covariance components in the UMAP space (the best clusters gmm makes; writes
# demo-out/model.bin, means.png and map.png), places the test split in it (map-test.png) and
# prints the scores; then, for comparison, the same mixture on the raw pixels; and says which
# command gave which accuracy.
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

limit=() pixel_limit=()
if [ "$have_gpu" = 0 ]; then
  limit=(--limit 20000) pixel_limit=(--limit 5000)
  say "no GPU: the UMAP space on at most the first 20000 images, the pixel model on 5000, so that the demo ends in minutes"
fi
mkdir -p "$OUT"
accuracy() { grep -m1 "$2" "$1" | awk '{print $2}'; }
# 1. the UMAP space, its defaults (--n-init 10, --init merge, --blur 0.5): the clusters that follow the classes
"$BIN/gmm-train" "$data" --space umap "${limit[@]}" -o "$OUT/model.bin" --png "$OUT/means.png" \
    --map "$OUT/map.png" | tee "$OUT/train.txt"
"$BIN/gmm-predict" "$OUT/model.bin" --out "$OUT/assignments.csv" --map "$OUT/map-test.png" \
    | tee "$OUT/test.txt"
# 2. the same mixture on the pixels; reg_covar 1e-2: pixel data has constant (always-black)
# pixels, and a larger ridge keeps the covariances well conditioned
"$BIN/gmm-train" "$data" -k 10 --reg-covar 1e-2 "${pixel_limit[@]}" -q -o "$OUT/pixels.bin" \
    --png "$OUT/means-pixels.png" > "$OUT/train-pixels.txt"
"$BIN/gmm-predict" "$OUT/pixels.bin" > "$OUT/test-pixels.txt"
if grep -q '^accuracy' "$OUT/train.txt"; then
  say "gmm-train DATA --space umap ${limit[*]}: training accuracy $(accuracy "$OUT/train.txt" '^accuracy'), test split $(accuracy "$OUT/test.txt" 'matching stored at training') (with the matching stored at training)"
  say "gmm-train DATA -k 10 --reg-covar 1e-2 ${pixel_limit[*]}: training accuracy $(accuracy "$OUT/train-pixels.txt" '^accuracy'), test split $(accuracy "$OUT/test-pixels.txt" 'matching stored at training')"
fi
say "done: $OUT/model.bin, $OUT/means.png, $OUT/map.png, $OUT/map-test.png, $OUT/assignments.csv (and the pixel model: $OUT/pixels.bin, $OUT/means-pixels.png)"
