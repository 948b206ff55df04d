#!/usr/bin/env bash
# gmm-download-mnist [DEST_DIR]: fetches the four MNIST files into DEST_DIR (default ./mnist),
# trying each mirror in turn and keeping a file only once its md5 matches, so that an interrupted
# or corrupted download never looks like data. Exit codes: 0 done, 1 usage or local problem,
# 2 a file could not be downloaded (no network, or every mirror failed or sent a bad file).
# GMM_MNIST_MIRRORS (space-separated base URLs) replaces the mirror list, e.g. for a local copy.
# Options: -h, --help prints this text; --version prints the program's version.
set -u

prog=gmm-download-mnist
# the Makefile writes its SO_VERSION here when it copies this script to bin/gmm-download-mnist
version=@GMM_VERSION@
die() { echo "$prog: $*" >&2; exit 1; }

case "${1:-}" in
  -h|--help)
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
    exit 0 ;;
  --version)
    case $version in @*) die "no version: run the copy that make writes to bin/" ;; esac
    echo "$prog $version"
    exit 0 ;;
esac
[ $# -le 1 ] || die "usage: $prog [DEST_DIR]"
dest=${1:-mnist}

mirrors=${GMM_MNIST_MIRRORS:-"https://ossci-datasets.s3.amazonaws.com/mnist/ https://storage.googleapis.com/cvdf-datasets/mnist/ http://yann.lecun.com/exdb/mnist/"}

files="train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz"
expected_md5() {
  case "$1" in
    train-images-idx3-ubyte.gz) echo f68b3c2dcbeaaa9fbdd348bbdeb94873 ;;
    train-labels-idx1-ubyte.gz) echo d53e105ee54ea40749a09fcbcd1e9432 ;;
    t10k-images-idx3-ubyte.gz) echo 9fb629c4189551a2d022fa330f9573f3 ;;
    t10k-labels-idx1-ubyte.gz) echo ec29112dd5afa0611ce80d1b7f02629c ;;
  esac
}

if command -v md5sum >/dev/null 2>&1; then
  md5_of() { md5sum "$1" | cut -d' ' -f1; }
elif command -v md5 >/dev/null 2>&1; then
  md5_of() { md5 -q "$1"; }
elif command -v openssl >/dev/null 2>&1; then
  md5_of() { openssl md5 -r "$1" | cut -d' ' -f1; }
else
  die "no md5sum, md5 or openssl found to verify the downloads"
fi

# A short connect timeout makes "no network" fail in seconds; the speed floor aborts a stalled
# transfer instead of hanging, without capping a slow but working one.
if command -v curl >/dev/null 2>&1; then
  fetch() { curl -fL --silent --show-error --connect-timeout 10 --speed-limit 1024 --speed-time 30 \
              --retry 0 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  fetch() { wget -nv --tries=1 --connect-timeout=10 --dns-timeout=10 --read-timeout=30 -O "$2" "$1"; }
else
  die "neither curl nor wget is installed; install one (apt-get install curl) and retry"
fi

# made_top: the outermost directory that mkdir -p is about to create, so cleanup removes exactly
# what we made (and only while empty).
parent_of() {
  local p=${1%/}
  case "$p" in */*) p=${p%/*}; echo "${p:-/}" ;; *) echo . ;; esac
}
made_top=""
if [ ! -d "$dest" ]; then
  d=$dest
  while [ ! -d "$d" ]; do made_top=$d; d=$(parent_of "$d"); done
  mkdir -p "$dest" 2>/dev/null || die "cannot create directory $dest"
fi
[ -w "$dest" ] || die "directory $dest is not writable"

# On failure nothing of ours stays behind: no .part file, and no directory we made for nothing.
part=""
cleanup() {
  [ -n "$part" ] && rm -f "$part"
  if [ -n "$made_top" ]; then
    d=$dest
    while rmdir "$d" 2>/dev/null && [ "$d" != "$made_top" ]; do d=$(parent_of "$d"); done
  fi
  return 0
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

for f in $files; do
  want=$(expected_md5 "$f")
  target="$dest/$f"
  if [ -f "$target" ] && [ "$(md5_of "$target")" = "$want" ]; then
    echo "$prog: $target already present (md5 ok)" >&2
    continue
  fi
  [ -f "$target" ] && echo "$prog: $target exists but its md5 differs; downloading it again" >&2
  part="$target.part"
  ok=0
  reason="could not download"
  for m in $mirrors; do
    url="${m%/}/$f"
    echo "$prog: fetching $url" >&2
    rm -f "$part"
    if ! err=$(fetch "$url" "$part" 2>&1); then
      echo "$prog:   failed: $(printf "%s\n" "${err:-download error}" | tail -n 1)" >&2
      continue
    fi
    got=$(md5_of "$part")
    if [ "$got" != "$want" ]; then
      echo "$prog:   md5 mismatch ($got, expected $want); trying the next mirror" >&2
      reason="could not get a file with the right md5 for"
      continue
    fi
    mv -f "$part" "$target" || die "cannot write $target"
    echo "$prog:   saved $target" >&2
    ok=1
    break
  done
  rm -f "$part"
  part=""
  if [ $ok -ne 1 ]; then
    if [ "$reason" = "could not download" ]; then
      echo "$prog: could not download $f from any mirror (no network?)" >&2
    else
      echo "$prog: $reason $f from any mirror" >&2
    fi
    exit 2
  fi
done
made_top=""
echo "$prog: MNIST is in $dest" >&2
