#!/usr/bin/env bash
# Regenerates the manual's example pictures (docs/images/*.png, shown by README.md and
# docs/images.md) from the real MNIST digits:
# gmm-train on the first LIMIT training images, K = 10, full covariance, --reg-covar 1e-2, seed 0,
# with --png, --images and --diagnostics, then copies the pictures the manual shows; and
# gmm-train --space umap on all of them (seed 0, its defaults) for the map of the clusters and
# its labelled means (map.png, means-umap.png).
#
#   app/make_examples.sh [MNIST_DIR]     (or: make examples [MNIST_DIR=...])
#
# MNIST_DIR defaults to $GMM_TEST_MNIST_DIR, then $MNIST_DIR, then ../shared/data/mnist, then
# ./mnist. Environment: BIN (the programs, default bin), LIMIT (default 10000: about 4 minutes on
# 2 CPU cores), OUT (default docs/images). Other gmm-train options can follow MNIST_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
LIMIT=${LIMIT:-10000}
OUT=${OUT:-docs/images}
say() { printf 'make_examples: %s\n' "$*" >&2; }

data=${1:-}
[ $# -gt 0 ] && shift
if [ -z "$data" ]; then
  for d in "${GMM_TEST_MNIST_DIR:-}" "${MNIST_DIR:-}" ../shared/data/mnist mnist; do
    if [ -n "$d" ] && [ -d "$d" ]; then data=$d; break; fi
  done
fi
if [ -z "$data" ] || [ ! -e "$data" ]; then
  say "error: no MNIST directory found; give one (app/make_examples.sh MNIST_DIR) or run bin/gmm-download-mnist"
  exit 1
fi
if [ ! -x "$BIN/gmm-train" ]; then
  say "error: $BIN/gmm-train not found; run make first (or set BIN)"
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT"
say "training on the first $LIMIT images of $data (this takes minutes without a GPU)"
start=$(date +%s)
"$BIN/gmm-train" "$data" --limit "$LIMIT" -k 10 --reg-covar 1e-2 --seed 0 -q \
    -o "$work/model.bin" --png "$OUT/means.png" --images "$OUT" --diagnostics "$work/diag" "$@"
for f in loglik_iterations loglik_hist outliers separation mahalanobis_k2; do
  cp "$work/diag/$f.png" "$OUT/"
done
say "the umap space on all the images of $data"
"$BIN/gmm-train" "$data" --space umap --seed 0 -q -o "$work/umap.bin" --png "$OUT/means-umap.png" \
    --map "$OUT/map.png"
say "wrote $(ls "$OUT"/*.png | wc -l) pictures to $OUT/ in $(( $(date +%s) - start )) s ($(du -ck "$OUT"/*.png | tail -1 | cut -f1) KB)"
