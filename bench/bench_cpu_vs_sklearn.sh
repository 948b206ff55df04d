#!/usr/bin/env bash
# One EM iteration of gmm's CPU backend against scikit-learn's GaussianMixture on the same data,
# machine and cores (same K, covariance type, reg_covar; median over the timed iterations).
# usage: bench/bench_cpu_vs_sklearn.sh DATA_DIR [ITERS]   (bin/gmm-train must be built)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: bench/bench_cpu_vs_sklearn.sh DATA_DIR [ITERS]}
iters=${2:-3}
py=/usr/bin/python3
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
sk=$($py bench/bench_sklearn.py "$data" --iters "$iters")
echo "$sk"
ours=$(bin/gmm-train "$data" -k 10 --reg-covar 1e-2 --device cpu --max-iter "$iters" --tol 0 \
        -o /tmp/gmm-bench-cpu.bin --png '' 2>/dev/null \
      | awk '/^iter/ {print $(NF-1)}' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "gmm cpu backend median_iter_s=$ours"
sk_s=${sk##*median_iter_s=}
awk -v s="$sk_s" -v o="$ours" 'BEGIN { printf "speed-up of gmm over scikit-learn: %.2fx\n", s / o }'
