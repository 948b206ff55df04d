#!/usr/bin/env bash
# The offline install of the Python package, as a user does it after `make`: pip builds the wheel
# from python/ with no index (the in-tree backend, python/gmm_build.py, needs nothing downloaded),
# the wheel's platform tag and contents are checked (libgmm.so.1, and libgmm-cuda.so.1 exactly
# when it was built), it is installed into a fresh venv of $PYTHON (--system-site-packages, so numpy
# is the system's), gmm is imported from outside the source tree and fits a small mixture whose
# means must equal the blobs' own means; then the same wheel goes through `make install-python`'s
# installer into a scratch prefix and out again. Skips with a message where venv or numpy is missing.
#
#   BUILD=build-cpu PYTHON=/usr/bin/python3 tests/check_python_install.sh   (make python-install-test)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
LIB=$PWD/$BUILD/libgmm.so.1
say() { printf 'python-install-test: %s\n' "$*"; }
fail() { say "FAIL: $*"; exit 1; }

[ -e "$LIB" ] || fail "$LIB is missing (make lib)"
if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
  say "SKIPPED: $PYTHON has no numpy (for Debian's python3: apt-get install python3-numpy)"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$PYTHON" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1 ||
   [ ! -x "$tmp/venv/bin/pip" ]; then
  say "SKIPPED: $PYTHON cannot make a venv with pip (Debian: apt-get install python3-venv): $(tail -1 "$tmp/venv.log")"
  exit 0
fi
pip=("$tmp/venv/bin/python" -m pip --disable-pip-version-check --no-input)

# 1. the wheel, built by pip with build isolation and no index: nothing may be downloaded
GMM_LIBRARY=$LIB "${pip[@]}" wheel --no-index --no-deps -w "$tmp/wheels" ./python \
  >"$tmp/wheel.log" 2>&1 || { cat "$tmp/wheel.log"; fail "pip wheel --no-index ./python"; }
wheels=("$tmp"/wheels/*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || fail "pip wrote no single wheel: ${wheels[*]}"
wheel=${wheels[0]}
platform=$("$PYTHON" -c 'import re, sysconfig; print(re.sub(r"[-.]", "_", sysconfig.get_platform()))')
version=$(sed -n 's/^version = "\(.*\)"/\1/p' python/pyproject.toml)
want="libgmm-$version-py3-none-$platform.whl"
[ "$(basename "$wheel")" = "$want" ] || fail "wheel $(basename "$wheel"), expected $want"
"$PYTHON" - "$wheel" "$LIB" "$PWD/$BUILD/libgmm-cuda.so.1" "$platform" <<'EOF' || fail "wheel contents"
import os, sys, zipfile
wheel, lib, cuda, platform = sys.argv[1:]
z = zipfile.ZipFile(wheel)
names = set(z.namelist())
info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/WHEEL"))
meta = z.read(info + "/WHEEL").decode()
assert f"Tag: py3-none-{platform}\n" in meta and "Root-Is-Purelib: false\n" in meta, meta
assert z.read("gmm/_libs/libgmm.so.1") == open(os.path.realpath(lib), "rb").read(), "not the build's libgmm"
has_cuda = "gmm/_libs/libgmm-cuda.so.1" in names
assert has_cuda == os.path.exists(cuda), f"CUDA backend in the wheel: {has_cuda}, built: {os.path.exists(cuda)}"
assert z.testzip() is None
print(f"python-install-test: {os.path.basename(wheel)}: {len(names)} files, CUDA backend "
      f"{'included' if has_cuda else 'not built, not included'}")
EOF

# 2. installed into the venv, offline, and used from outside the source tree
"${pip[@]}" install --no-index "$wheel" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "pip install --no-index $wheel"; }
cat >"$tmp/fit.py" <<'EOF'
# two far-apart blobs: the fitted means must be the blobs' own means, the labels the blobs
import importlib.metadata, os, sys
import numpy as np
import gmm
site = sys.argv[1]
assert os.path.realpath(gmm.library_path).startswith(os.path.realpath(site)), gmm.library_path
dist_version = importlib.metadata.version("libgmm")
assert gmm.__version__ == dist_version, (gmm.__version__, dist_version)
rng = np.random.RandomState(3)
a, b = rng.randn(300, 3), rng.randn(200, 3) + 12.0
X = np.vstack([a, b])
est = gmm.GaussianMixture(2, covariance_type="full", random_state=0).fit(X)
labels = est.predict(X)
assert est.converged_ and len(set(labels[:300])) == 1 and len(set(labels[300:])) == 1
assert labels[0] != labels[-1]
means = est.means_[[labels[0], labels[-1]]]
err = np.abs(means - [a.mean(0), b.mean(0)]).max()
assert err < 1e-6, err
print(f"python-install-test: imported gmm {gmm.__version__} from {os.path.dirname(gmm.__file__)}, "
      f"library {os.path.basename(gmm.library_path)}; fit: {est.n_iter_} iterations, means within "
      f"{err:.1e} of the blobs'")
EOF
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
(cd "$tmp" && env -u GMM_LIBRARY -u PYTHONPATH "$tmp/venv/bin/python" fit.py "$site") ||
  fail "import and fit in the venv"

# 3. make install-python's installer (no pip) into a scratch prefix, then make uninstall-python's
prefix=$tmp/prefix
"$PYTHON" python/gmm_build.py install "$wheel" --prefix "$prefix" >/dev/null || fail "gmm_build.py install"
pdir=$("$PYTHON" python/gmm_build.py site-dir --prefix "$prefix")
(cd "$tmp" && env -u GMM_LIBRARY PYTHONPATH="$pdir" "$PYTHON" fit.py "$pdir") ||
  fail "import and fit from the prefix"
"$PYTHON" python/gmm_build.py uninstall --prefix "$prefix" >/dev/null || fail "gmm_build.py uninstall"
left=$(find "$prefix" -type f | head -3)
[ -z "$left" ] || fail "uninstall left $left"
say "OK: built offline, tagged py3-none-$platform, installed into a venv and a prefix, fitted, removed"
