#!/usr/bin/env bash
# Before against after on one GPU machine, in one go: builds an earlier source tree
# (BEFORE_DIR, made here with `git archive REV | tar -x -C BEFORE_DIR` and carried along) beside
# the working tree, then times both alternately so that the machine's drift hits both alike:
# `gmm-bench em --iters 20 --no-fit` (Fashion-MNIST and the digits) and PAIRS
# whole `gmm-train $FASHION_MNIST_DIR -k 10 --device gpu --timings` runs under /usr/bin/time
# (medians printed), then as many digits ($MNIST_DIR) pairs (medians printed).
#   bench/ab_runs.sh BEFORE_DIR [PAIRS]     (PAIRS default 5; needs nvcc and a GPU)
set -u
cd "$(dirname "$0")/.."
before=${1:?usage: bench/ab_runs.sh BEFORE_DIR [PAIRS]}
pairs=${2:-5}
arch=${CUDA_ARCH:-sm_90}
make CUDA=1 CUDA_ARCH="$arch" -j"$(nproc)" >/tmp/ab_after_build.log 2>&1 ||
  { tail -20 /tmp/ab_after_build.log; exit 1; }
(cd "$before" && make CUDA=1 CUDA_ARCH="$arch" -j"$(nproc)" >/tmp/ab_before_build.log 2>&1) ||
  { tail -20 /tmp/ab_before_build.log; exit 1; }
after_bin=$PWD/bin
before_bin=$(cd "$before" && pwd)/bin

for side in before after; do # Fashion ($FASHION_MNIST_DIR) and the digits ($MNIST_DIR) each
  bin=${side}_bin
  echo "== gmm-bench em, $side"
  "${!bin}"/gmm-bench em --iters 20 --no-fit 2>&1
done

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
run_whole() { # $1 bin dir, $2 data, $3 output
  /usr/bin/time -f "wall %e" "$1"/gmm-train "$2" -k 10 --device gpu -q --timings -o "$3" 2>&1 |
    grep -E "^timings|^wall"
}
mkdir -p /tmp/ab && cd /tmp/ab || exit 1
"$after_bin"/gmm-train "$FASHION_MNIST_DIR" -k 10 --device gpu -q -o warm.bin >/dev/null 2>&1
: >before.txt
: >after.txt
for i in $(seq "$pairs"); do
  for side in before after; do
    bin=${side}_bin
    out=$(run_whole "${!bin}" "$FASHION_MNIST_DIR" "$side.bin")
    echo "$side $i: $out"
    echo "$out" | awk '/^wall/ {print $2}' >>"$side.txt"
  done
done
echo "Fashion whole run medians: before $(median <before.txt) s, after $(median <after.txt) s"
: >d_before.txt
: >d_after.txt
for i in $(seq "$pairs"); do
  for side in before after; do
    bin=${side}_bin
    out=$(run_whole "${!bin}" "$MNIST_DIR" "d_$side.bin")
    echo "digits $side $i: $(echo "$out" | tr '\n' ' ')"
    echo "$out" | awk '/^wall/ {print $2}' >>"d_$side.txt"
  done
done
echo "digits whole run medians: before $(median <d_before.txt) s, after $(median <d_after.txt) s"
