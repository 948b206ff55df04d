#!/usr/bin/env bash
# The spectral embedding of the kNN graph (10 neighbours, 10 dimensions): gmm's (gmm-bench
# spectral: kNN search, graph, Lanczos; GPU, and CPU with --cpu) beside scikit-learn's
# SpectralEmbedding(affinity="nearest_neighbors") on the same images in the same run, and the
# largest principal angle between the two embeddings.
# usage: bench/bench_spectral_vs_sklearn.sh DIR [DIR...]   (bin/gmm-bench built; SKLEARN_MAX=N
# caps the images scikit-learn embeds, default 20000: it needs minutes beyond that)
# PYTHON=... picks the interpreter; otherwise the first of python3, /usr/bin/python3 that imports
# sklearn.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/bench_spectral_vs_sklearn.sh DIR [DIR...]" >&2; exit 2; }
py=${PYTHON:-}
if [ -z "$py" ]; then
    for c in python3 /usr/bin/python3; do
        if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sklearn' 2>/dev/null; then py=$c; break; fi
    done
fi
[ -n "$py" ] || { echo "error: no python interpreter here imports sklearn" >&2; exit 1; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "python: $("$py" -c 'import sys, sklearn; print(sys.version.split()[0], "sklearn", sklearn.__version__)')"
for dir in "$@"; do
    ./bin/gmm-bench spectral --data "$dir" ${GMM_BENCH_SPECTRAL_ARGS:-}
    "$py" bench/bench_sklearn_spectral.py "$dir" "${SKLEARN_MAX:-20000}"
done
