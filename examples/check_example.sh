#!/usr/bin/env bash
# make example-test: builds examples/fit_predict.c against the gmm installed in $PREFIX with
# `pkg-config --cflags --libs gmm` (shared library) and `--static` (libgmm.a), runs both and
# checks what they print, and that README.md shows this file as its C example.
set -eu
cd "$(dirname "$0")/.."
: "${PREFIX:?PREFIX: the install to build against}" "${BUILD:=build}" "${CC:=cc}"
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
# the README's C example is this file, verbatim (its first ```c block)
readme_c=$(awk '/^```c$/ {on = 1; next} on && /^```$/ {exit} on' README.md)
if [ "$readme_c" != "$(cat examples/fit_predict.c)" ]; then
  echo "example-test: FAILED: README.md's C example differs from examples/fit_predict.c:" >&2
  diff <(echo "$readme_c") examples/fit_predict.c >&2
  exit 1
fi
want="converged 1 after [0-9]+ iterations; 400 of 400 points in their own blob's component"
for kind in shared static; do
  flags=$(pkg-config --cflags --libs $([ $kind = static ] && echo --static) gmm)
  exe="$BUILD/examples/fit_predict_$kind"
  mkdir -p "$BUILD/examples"
  if [ $kind = static ]; then
    # the static archive only: -lgmm must not find the .so
    flags=${flags/-lgmm/$PREFIX/lib/libgmm.a}
  fi
  $CC -std=c11 -Wall -Wextra -Werror examples/fit_predict.c $flags -o "$exe"
  out=$(LD_LIBRARY_PATH="$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$exe")
  if ! grep -Eq "^$want\$" <<<"$out"; then
    echo "example-test: FAILED ($kind): expected '$want', got '$out'" >&2
    exit 1
  fi
done
if [ "$(readlink "$PREFIX/lib/libgmm.so.1")" != libgmm.so.1.0.0 ] ||
   ! objdump -p "$PREFIX/lib/libgmm.so.1.0.0" | grep -q 'SONAME *libgmm.so.1$'; then
  echo "example-test: FAILED: libgmm.so.1 -> libgmm.so.1.0.0 with soname libgmm.so.1 expected" >&2
  exit 1
fi
# the shared library exports exactly the functions that gmm/gmm.h declares (models/api/api.map)
exported=$(nm -D --defined-only "$PREFIX/lib/libgmm.so.1.0.0" | awk '$2 == "T" {sub(/@.*/, "", $3); print $3}' | sort)
declared=$(grep -oE '\bgmm_[a-z_0-9]+\(' "$PREFIX/include/gmm/gmm.h" | tr -d '(' | sort -u)
if [ "$exported" != "$declared" ]; then
  echo "example-test: FAILED: libgmm.so exports differ from gmm/gmm.h's functions:" >&2
  diff <(echo "$declared") <(echo "$exported") >&2
  exit 1
fi
echo "example-test: OK (examples/fit_predict.c via pkg-config, shared and static: $out)"
