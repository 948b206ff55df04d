#!/usr/bin/env bash
# Installs the Debian packages that building, the demo, the tests or CI need: the one list of
# them and the one install step, used by `make deps`, `make demo`, `make test` and .ci/run.
#
#   tests/install_deps.sh build|demo|test|ci [--strict]   the set (each includes the one before)
#   tests/install_deps.sh --packages NAME... [--strict]   just these packages (the demo's data)
#
# Packages already installed are skipped (dpkg -s); the rest go through apt-get as root, through
# sudo otherwise (password-less, or asking on a terminal), else a message names them and the
# command to run. Without --strict a package that could not be installed is not an error (exit 0:
# the build and the suites then say what they miss); with --strict it is (exit 1).
set -u

build=(build-essential pkg-config libopenblas-dev liblapacke-dev libpng-dev zlib1g-dev
       libdeflate-dev curl ca-certificates)
demo=("${build[@]}")
# Check for the suites; numpy, scipy, scikit-learn and pytest for the Python module's tests and
# the spectral suite's reference; venv (with its pip) for the Python package's install test; Open
# MPI for the mpirun suites (and the programs' MPI build); iproute2 (ip netns) for the suite whose
# ranks live in network namespaces
test=("${demo[@]}" check libsubunit-dev python3-numpy python3-scipy python3-sklearn python3-pytest
      python3-venv openmpi-bin libopenmpi-dev iproute2)
# CI also runs the libFuzzer harnesses (clang 14, Debian 12's, and its fuzzer runtime)
ci=("${test[@]}" clang libclang-rt-14-dev)

say() { printf 'install_deps: %s\n' "$*" >&2; }
strict=0
set_name=
wanted=()
for arg in "$@"; do
  case $arg in
    --strict) strict=1 ;;
    --packages) set_name=--packages ;;
    *) if [ "$set_name" = --packages ]; then wanted+=("$arg")
       elif [ -z "$set_name" ]; then set_name=$arg
       else say "unexpected argument '$arg'"; exit 2; fi ;;
  esac
done
case $set_name in
  build) wanted=("${build[@]}") ;;
  demo) wanted=("${demo[@]}") ;;
  test) wanted=("${test[@]}") ;;
  ci) wanted=("${ci[@]}") ;;
  --packages) ;;
  *) say "usage: tests/install_deps.sh build|demo|test|ci [--strict] | --packages NAME..."; exit 2 ;;
esac

if ! command -v dpkg >/dev/null 2>&1; then
  say "not a Debian system (no dpkg): install the equivalents of ${wanted[*]} yourself"
  exit "$strict"
fi
missing=()
for p in "${wanted[@]}"; do
  dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

apt() {
  "$@" apt-get update -qq &&
    "$@" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}"
}
if [ "$(id -u)" = 0 ]; then
  say "installing ${missing[*]}"
  apt && exit 0
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
  say "installing ${missing[*]} (sudo)"
  apt sudo && exit 0
else
  say "cannot install them: not root and no password-less sudo; as root run"
  say "  apt-get install ${missing[*]}"
  exit "$strict"
fi
say "apt-get could not install ${missing[*]} (no network, or no such package here?)"
exit "$strict"
