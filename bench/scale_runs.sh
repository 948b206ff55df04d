#!/usr/bin/env bash
# The scale figures of docs/performance.md in one run on a GPU machine (after a CUDA build): an N x 784 set made by gmm-augment from Fashion-MNIST (8.1 million images, the size
# of MNIST8M, by default), then gmm-bench scale on 1..G GPUs in fp64 and TF32, the data resident on
# the device and streamed from host memory, and whole gmm-train fits: --gpus G against mpirun -np G
# with one GPU per rank (the same lower bound, and the time of each).
#   bench/scale_runs.sh [N_IMAGES [GPUS [ITERS]]]   (defaults: 8100000, every GPU, 5)
set -u
cd "$(dirname "$0")/.."
N=${1:-8100000}
G=${2:-$(nvidia-smi -L | wc -l)}
ITERS=${3:-5}
DATA=${SCALE_DATA:-/tmp/scale-$N}
if [ ! -f "$DATA/train-images-idx3-ubyte" ]; then
  /usr/bin/time -f "gmm-augment: %e s wall" ./bin/gmm-augment "$FASHION_MNIST_DIR" "$DATA" -n "$N" \
    --seed 1 -q --png ''
fi
ls -l "$DATA"
list=1
for g in $(seq 2 "$G"); do list=$list,$g; done
./bin/gmm-bench scale --data "$DATA" -k 10 --iters "$ITERS" --gpus "$list" --precision fp64,tf32
# the data forced to host memory: every pass streams it (2 GiB for the chunks and buffers)
./bin/gmm-bench scale --data "$DATA" -k 10 --iters "$ITERS" --gpus 1 --precision fp64,tf32 \
  --memory-budget 2147483648
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
/usr/bin/time -f "gpus 1: %e s wall" ./bin/gmm-train "$DATA" --gpus 1 -k 10 --max-iter 10 --tol 0 -q \
  --png '' -o /tmp/scale-one.bin 2>&1 | grep -E "iterations|wall|error"
if [ "$G" -gt 1 ]; then
  for how in "gpus" "mpirun"; do
    if [ $how = gpus ]; then run=(./bin/gmm-train "$DATA" --gpus "$G");
    else run=(mpirun --oversubscribe -np "$G" --bind-to none ./bin/gmm-train "$DATA"); fi
    /usr/bin/time -f "$how $G: %e s wall" "${run[@]}" -k 10 --max-iter 10 --tol 0 -q --png '' \
      -o "/tmp/scale-$how.bin" 2>&1 | grep -E "iterations|wall|error"
  done
fi
