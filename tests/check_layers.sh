#!/usr/bin/env bash
# Keeps the layer order of docs/architecture.md: app/ and bench/ -> models/ -> linalg/ ->
# kernels/, with data/ beside models/ (used by app/ and models/ only). Fails, naming the line, on
#   - an #include that runs upward (or sideways into app/ or bench/),
#   - getenv/setenv in library code (only the programs read the environment),
#   - a cuBLAS/cuSOLVER call outside kernels/gpu.cu (the GPU resources object is the one place
#     where handles live and row-major meets column-major; kernels/gpu_libs.cu/.cuh load the two
#     libraries and name their functions for it),
#   - inside models/, an #include that runs upward between its rooms (below),
#   - a circle of includes anywhere in the library (a file and its header count as one module),
#   - a library source file longer than MAX_LINES.
# The rooms of models/, top to bottom (a room includes only itself and the rooms below it):
#   api -> fit -> core -> backend -> dist -> io, eval -> models/ itself (model, options, data
#   views) -> features
set -u
cd "$(dirname "$0")/.."
MAX_LINES=600
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

declare -A room_rank=([features]=0 [top]=1 [io]=2 [eval]=2 [dist]=3 [backend]=4 [core]=5
                      [fit]=6 [api]=7)
room_of() { # models/fit/x.c -> fit; models/model.h -> top
  local rest=${1#models/}
  case $rest in */*) echo "${rest%%/*}" ;; *) echo top ;; esac
}
while IFS= read -r f; do
  from=$(room_of "$f")
  [ -n "${room_rank[$from]+x}" ] || { complain "$f: models/$from/ is not a room of check_layers.sh"; continue; }
  while IFS=: read -r line inc; do
    to=$(room_of "$inc")
    [ -n "${room_rank[$to]+x}" ] || { complain "$f:$line: includes $inc, in no room"; continue; }
    if [ "${room_rank[$to]}" -gt "${room_rank[$from]}" ] ||
       { [ "${room_rank[$to]}" -eq "${room_rank[$from]}" ] && [ "$to" != "$from" ]; }; then
      complain "$f:$line: models/$from must not include $inc (rooms: api fit core backend dist io|eval model features)"
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"models/' "$f" |
           sed -E 's/^([0-9]+):.*"(models\/[^"]+)".*/\1:\2/')
done < <(find models -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh')

# Circles: one node per module (path without its extension), an edge per #include.
if ! loops=$(for f in $(find kernels linalg models data -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh'); do
      from=${f%.*}
      grep -hoE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"(kernels|linalg|models|data)/[^"]+"' "$f" |
        sed -E 's/.*"([^"]+)".*/\1/' | while read -r inc; do
          to=${inc%.*}
          [ "$to" = "$from" ] || echo "$to $from"
        done
    done | tsort 2>&1 >/dev/null); then :; fi
if [ -n "$loops" ]; then
  complain "includes run in a circle: $(echo "$loops" | grep -v 'input contains a loop' | sed 's/^tsort: //' | tr '\n' ' ')"
fi

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
echo "check_layers: layer order (models/ rooms included), no circles, environment, vendor calls and file sizes OK"
