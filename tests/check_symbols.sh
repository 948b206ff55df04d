#!/usr/bin/env bash
# The names the installed libraries export and what the programs link (run by `make test`).
# Fails, naming the culprits, when
#   - build/libgmm.a or build/libgmm.so exports (global, defined) a name not starting with gmm_
#     (a user's own la_dgemm must link), or the two export different names;
#   - bin/gmm-train, gmm-predict, gmm-augment or build/libgmm.so links a CUDA or NCCL library
#     (the CPU core starts without CUDA; the CUDA backend, build/libgmm-cuda.so.1, is loaded at
#     run time when a GPU is asked for);
#   - the CUDA backend library, when built, exports more than its tables and loader hooks, or
#     leaves a name undefined.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build} BIN=${BIN:-bin}
bad=0
complain() { echo "check_symbols: $*" >&2; bad=1; }

# global defined names of a static archive / the dynamic symbols of a shared object (the version
# node, an absolute symbol, is not a name)
archive_names() { nm -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 && $2 != "A" {print $3}' | sort -u; }
shared_names() { nm -D --defined-only "$1" 2>/dev/null | awk 'NF == 3 && $2 != "A" {sub(/@.*/, "", $3); print $3}' | sort -u; }

static_lib=$BUILD/libgmm.a shared_lib=$BUILD/libgmm.so.1
[ -f "$static_lib" ] || complain "$static_lib is missing (make lib)"
if [ -f "$static_lib" ]; then
  stray=$(archive_names "$static_lib" | grep -v '^gmm_')
  [ -z "$stray" ] || complain "$static_lib exports names without the gmm_ prefix:" $stray
fi
if [ -e "$shared_lib" ]; then
  stray=$(shared_names "$shared_lib" | grep -v '^gmm_')
  [ -z "$stray" ] || complain "$shared_lib exports names without the gmm_ prefix:" $stray
  if [ -f "$static_lib" ]; then
    differ=$(diff <(archive_names "$static_lib") <(shared_names "$shared_lib") | grep '^[<>]')
    [ -z "$differ" ] || complain "libgmm.a and libgmm.so export different names:" $differ
  fi
fi

# no CUDA library among what the CPU core loads at start
for f in "$BIN/gmm-train" "$BIN/gmm-predict" "$BIN/gmm-augment" "$shared_lib"; do
  [ -e "$f" ] || { [ "$f" = "$shared_lib" ] && continue; complain "$f is missing"; continue; }
  cuda=$(ldd "$f" 2>&1 | grep -E 'lib(cudart|nccl|cublas|cublasLt|cusolver|cusparse|cuda)\.so' |
         awk '{print $1}')
  [ -z "$cuda" ] || complain "$f links CUDA (it must load it at run time only):" $cuda
done

cuda_lib=$BUILD/libgmm-cuda.so.1
if [ -e "$cuda_lib" ]; then
  stray=$(shared_names "$cuda_lib" | grep -vE '^gmm_cuda_(api_[a-z]+|backend_abi|backend_attach)$')
  [ -z "$stray" ] || complain "$cuda_lib exports more than its tables:" $stray
  undefined=$(ldd -r "$cuda_lib" 2>&1 | grep -E 'undefined symbol|not found')
  [ -z "$undefined" ] || complain "$cuda_lib does not resolve: $undefined"
fi

if [ "$bad" -ne 0 ]; then
  echo "check_symbols: FAILED" >&2
  exit 1
fi
echo "check_symbols: libgmm.a/.so export only gmm_ names; the programs and libgmm.so link no CUDA"
