#!/usr/bin/env bash
# The accuracy tables and timings of docs/performance.md that need a GPU, in one run on a GPU
# machine (after a CUDA build): --space spectral / --init spectral on the digits
# and on Fashion-MNIST (5 seeds, bench/pca_table.sh), -k 2:20 on the digits, and five whole
# gmm-train runs on Fashion-MNIST with their --timings lines.
#   bench/device_runs.sh [spectral|krange|whole]...   (default: all three)
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- spectral krange whole
for what in "$@"; do
  case $what in
  spectral)
    bench/pca_table.sh "$MNIST_DIR" gpu spec10:--space,spectral spec20:--space,spectral,--spectral-dims,20 \
      spec10n5:--space,spectral,--n-init,5 spec20n5:--space,spectral,--spectral-dims,20,--n-init,5 \
      initspec:--init,spectral,--reg-covar,1e-2 initspecn5:--init,spectral,--n-init,5,--reg-covar,1e-2 | tail -8
    bench/pca_table.sh "$FASHION_MNIST_DIR" gpu raw:--reg-covar,1e-2 spec10:--space,spectral \
      spec20:--space,spectral,--spectral-dims,20 spec10n5:--space,spectral,--n-init,5 \
      initspec:--init,spectral,--reg-covar,1e-2 | tail -7 ;;
  krange)
    mkdir -p /tmp/krange && cd /tmp/krange
    for opts in "--pca 30" "--reg-covar 1e-2"; do
      /usr/bin/time -f "wall %e s" "$OLDPWD"/bin/gmm-train "$MNIST_DIR" -k 2:20 $opts --device gpu -q \
        --png '' --bic-png "bic-${opts// /}.png" 2>&1 | grep -v "^k=" | sed -n '/^    K/,$p' | head -26
    done
    [ -n "${OUT:-}" ] && cp /tmp/krange/*.png "$OUT"/
    cd "$OLDPWD" ;;
  whole)
    ./bin/gmm-train "$FASHION_MNIST_DIR" -k 10 --device gpu -q -o /tmp/warm.bin >/dev/null 2>&1
    for i in 1 2 3 4 5; do
      /usr/bin/time -f "wall %e s" ./bin/gmm-train "$FASHION_MNIST_DIR" -k 10 --device gpu -q --timings \
        -o /tmp/m.bin 2>&1 | grep -E "^timings|^wall"
    done
    for i in 1 2 3; do
      /usr/bin/time -f "digits wall %e s" ./bin/gmm-train "$MNIST_DIR" -k 10 --device gpu -q --timings \
        -o /tmp/d.bin 2>&1 | grep -E "^timings|wall"
    done ;;
  esac
done
