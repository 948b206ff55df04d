#!/usr/bin/env bash
# Keeps the layer order of docs/architecture.md: app/ and bench/ -> models/ -> linalg/ ->
# kernels/, with data/ beside models/ (used by app/ and models/ only). Fails, naming the line, on
#   - an #include that runs upward (or sideways into app/ or bench/),
#   - getenv/setenv in library code (only the programs read the environment),
#   - a cuBLAS/cuSOLVER call outside kernels/gpu.cu (the GPU resources object is the one place
#     where handles live and row-major meets column-major; kernels/gpu_libs.cu/.cuh load the two
#     libraries and name their functions for it),
#   - a library source file longer than MAX_LINES.
set -u
cd "$(dirname "$0")/.."
MAX_LINES=650
bad=0
complain() { echo "check_layers: $*" >&2; bad=1; }

# folder -> the folders it must not include from
declare -A forbidden=(
  [kernels]="linalg models data app bench"
  [linalg]="models data app bench"
  [data]="linalg models app bench"
  [models]="app bench"
  [tests]="app"
)
for dir in "${!forbidden[@]}"; do
  for up in ${forbidden[$dir]}; do
    while IFS= read -r hit; do
      complain "$hit: $dir/ must not include $up/"
    done < <(grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]+\"$up/" \
               $(find "$dir" -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh') 2>/dev/null |
               grep -v '^tests/fuzz/fuzz_[a-z]*_args\.c:') # the option-parser harnesses drive app/
  done
done

lib_sources=$(find kernels linalg models data -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh')
while IFS= read -r hit; do
  complain "$hit: library code must not read or set the environment (options carry tuning)"
done < <(grep -nE '\b(getenv|setenv|unsetenv|secure_getenv)[[:space:]]*\(' $lib_sources)

while IFS= read -r hit; do
  complain "$hit: cuBLAS/cuSOLVER are called only through kernels/gpu.h"
done < <(grep -nE '\b(cublas[A-Z][A-Za-z0-9_]*|cusolverDn[A-Z][A-Za-z0-9_]*)[[:space:]]*\(' \
           $lib_sources $(find bench app -name '*.c' -o -name '*.cu') |
         grep -v '^kernels/gpu\.cu:' | grep -v '^kernels/gpu_libs\.cuh\?:' |
         grep -v '^kernels/cuda_check\.cu:')

for f in $lib_sources; do
  n=$(wc -l < "$f")
  [ "$n" -le "$MAX_LINES" ] || complain "$f: $n lines (at most $MAX_LINES: split it by operation)"
done

if [ "$bad" -ne 0 ]; then
  echo "check_layers: FAILED" >&2
  exit 1
fi
echo "check_layers: layer order, environment, vendor calls and file sizes OK"
