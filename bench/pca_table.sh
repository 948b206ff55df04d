#!/usr/bin/env bash
# The --pca and spectral tables of docs/performance.md: for each setting, gmm-train on DATA_DIR (K = 10, full, seeds
# 0..4) then gmm-predict on its test split; prints one tab-separated line per run (setting,
# device, seed, iterations, fit seconds, training accuracy and NMI, test accuracy and NMI) and
# then the mean and sample standard deviation per setting.
#   bench/pca_table.sh DATA_DIR DEVICE [SETTING...]   (SETTING: name:options, commas for spaces)
# Default settings: raw pixels with --reg-covar 1e-2, --pca 30/50/100 with and without --whiten.
set -u
data=${1:?usage: bench/pca_table.sh DATA_DIR cpu|gpu [name:options ...]}
device=${2:?usage: bench/pca_table.sh DATA_DIR cpu|gpu [name:options ...]}
shift 2
bin=${GMM_BIN:-bin}
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
[ $# -gt 0 ] || set -- raw:--reg-covar,1e-2 pca30:--pca,30 pca30w:--pca,30,--whiten \
  pca50:--pca,50 pca50w:--pca,50,--whiten pca100:--pca,100 pca100w:--pca,100,--whiten
runs=$(mktemp)
for setting in "$@"; do
  name=${setting%%:*}; options=${setting#*:}; options=${options//,/ }
  for seed in 0 1 2 3 4; do
    m=$models/$name-$seed.bin
    train=$("$bin"/gmm-train "$data" -k 10 --device "$device" --seed $seed $options -o "$m" --png '' -q 2>&1)
    fit=$(echo "$train" | grep -oP 'iterations, \K[0-9.]+(?= s fitting)')
    iters=$(echo "$train" | grep -oP 'in \K[0-9]+(?= iterations)' | head -1)
    tacc=$(echo "$train" | grep -oP '^accuracy \K[0-9.]+'); tnmi=$(echo "$train" | grep -oP 'NMI \K[0-9.]+')
    predict=$("$bin"/gmm-predict "$m" --device "$device" 2>&1)
    pacc=$(echo "$predict" | grep -oP '^accuracy \K[0-9.]+'); pnmi=$(echo "$predict" | grep -oP 'NMI \K[0-9.]+')
    if [ -z "$tacc" ] || [ -z "$pacc" ]; then echo "$name seed $seed failed: $train $predict" >&2; continue; fi
    printf '%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$device" $seed "$iters" "$fit" \
      "$tacc" "$tnmi" "$pacc" "$pnmi" | tee -a "$runs"
  done
done
echo
awk -F'\t' '
  { n[$1]++; if (!($1 in order)) { order[$1] = ++count; names[count] = $1 }
    for (c = 5; c <= 9; c++) { s[$1, c] += $c; q[$1, c] += $c * $c } }
  function ms(k, c,   m, v) { m = s[k, c] / n[k]; v = n[k] > 1 ? (q[k, c] - n[k] * m * m) / (n[k] - 1) : 0;
    return sprintf("%.3f ± %.3f", m, sqrt(v > 0 ? v : 0)) }
  END { printf "%-8s %4s %18s %18s %18s %18s %18s\n", "setting", "runs", "train accuracy", "train NMI",
          "test accuracy", "test NMI", "fit seconds";
        for (i = 1; i <= count; i++) { k = names[i];
          printf "%-8s %4d %18s %18s %18s %18s %18s\n", k, n[k], ms(k, 6), ms(k, 7), ms(k, 8), ms(k, 9), ms(k, 5) } }' "$runs"
rm -f "$runs"
