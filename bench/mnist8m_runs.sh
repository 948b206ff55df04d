#!/usr/bin/env bash
# Whole gmm-train runs at MNIST8M size on a GPU machine (after a CUDA build): 8.1 million images
# made by gmm-augment from Fashion-MNIST, K = 10, full covariance, 10 EM iterations (--tol 0),
# in fp64 and TF32, with each run's --timings line, lower bound, wall time and peak host memory
# (/usr/bin/time's maximum resident set size); then gmm-bench em (60000 images: the iteration,
# its E-step/M-step split and the % of the DGEMM/TF32 ceilings). Given the directory of an
# earlier build (its bin/), the same runs of that build first, on the same GPU. GPU_COUNTS: the
# runs on one GPU (--device gpu) and on several (--gpus G), e.g. 1,2,4; BENCH_EM=0 skips gmm-bench.
#   bench/mnist8m_runs.sh [BEFORE_DIR|-] [GPU_COUNTS [N_IMAGES]]   (defaults: -, 1, 8100000)
set -u
cd "$(dirname "$0")/.."
BEFORE=${1:--}
COUNTS=${2:-1}
N=${3:-8100000}
DATA=${SCALE_DATA:-/tmp/scale-$N}
if [ ! -f "$DATA/train-images-idx3-ubyte" ]; then
  /usr/bin/time -f "gmm-augment: %e s wall" ./bin/gmm-augment "$FASHION_MNIST_DIR" "$DATA" -n "$N" \
    --seed 1 -q --png ''
fi
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
sides="after"
[ "$BEFORE" != "-" ] && sides="before after"
for side in $sides; do
  dir=.
  [ "$side" = before ] && dir=$BEFORE
  echo "== $side ($dir)"
  for p in fp64 tf32; do
    for gpus in ${COUNTS//,/ }; do
      how=(--device gpu)
      [ "$gpus" -gt 1 ] && how=(--gpus "$gpus")
      /usr/bin/time -f "$side $p gpus $gpus: %e s wall, peak host memory %M KB" \
        "$dir"/bin/gmm-train "$DATA" "${how[@]}" -k 10 --max-iter 10 --tol 0 --precision "$p" \
        -v --timings --png '' -o "/tmp/m8-$side-$p-$gpus.bin" 2>&1 |
        grep -E "^timings|lower bound [0-9-]|wall|sample|error|initialisation"
    done
  done
done
[ "${BENCH_EM:-1}" = 0 ] && exit 0
for side in $sides; do
  dir=.
  [ "$side" = before ] && dir=$BEFORE
  echo "== gmm-bench em, $side"
  "$dir"/bin/gmm-bench em 2>&1 | tail -25
done
