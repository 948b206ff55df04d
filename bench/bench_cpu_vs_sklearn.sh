#!/usr/bin/env bash
# One EM iteration of gmm's CPU backend (--precision fp64 and fp32) against scikit-learn's
# GaussianMixture (X in float64 and in float32) on the same data, machine and cores (same K,
# covariance type, reg_covar; median over the timed iterations of each).
# usage: bench/bench_cpu_vs_sklearn.sh DATA_DIR [ITERS]   (bin/gmm-train must be built)
# PYTHON=... picks the interpreter; otherwise the first of python3, /usr/bin/python3,
# /usr/bin/python3.* that imports sklearn (Debian: apt-get install python3-sklearn).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: bench/bench_cpu_vs_sklearn.sh DATA_DIR [ITERS]}
iters=${2:-3}
py=${PYTHON:-}
if [ -z "$py" ]; then
    for c in python3 /usr/bin/python3 /usr/bin/python3.*; do
        if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sklearn' 2>/dev/null; then
            py=$c
            break
        fi
    done
fi
if [ -z "$py" ]; then
    echo "error: no python interpreter here imports sklearn (apt-get install python3-sklearn)" >&2
    exit 1
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
     "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}, OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "python: $(command -v "$py") $("$py" -c 'import sys, sklearn, numpy; print(sys.version.split()[0], "sklearn", sklearn.__version__, "numpy", numpy.__version__)')"

median_ours() { # precision -> median seconds per iteration of gmm-train's progress lines
    bin/gmm-train "$data" -k 10 --reg-covar 1e-2 --device cpu --precision "$1" --max-iter "$iters" \
        --tol 0 -o /tmp/gmm-bench-cpu.$$.bin --png '' 2>/dev/null \
      | awk '/^iter/ {print $(NF-1)}' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

declare -A sk ours
for dt in float64 float32; do
    line=$("$py" bench/bench_sklearn.py "$data" --iters "$iters" --dtype "$dt")
    echo "$line"
    sk[$dt]=${line##*median_iter_s=}
done
for p in fp64 fp32; do
    ours[$p]=$(median_ours "$p")
    echo "gmm cpu backend $p median_iter_s=${ours[$p]}"
done
rm -f /tmp/gmm-bench-cpu.$$.bin
for p in fp64 fp32; do
    dt=$([ "$p" = fp64 ] && echo float64 || echo float32)
    awk -v p="$p" -v o="${ours[$p]}" -v s64="${sk[float64]}" -v s32="${sk[float32]}" -v dt="$dt" \
        'BEGIN { printf "gmm %s: %.2fx scikit-learn float64, %.2fx scikit-learn float32\n", p, s64 / o, s32 / o }'
done
