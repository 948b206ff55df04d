#!/usr/bin/env bash
# The options are documented once, in each program's --help, and checked for the man pages:
# every long option that a program's --help prints (gmm-bench's em, spectral, umap and scale help
# too) must appear in man/PROGRAM.1, and `PROGRAM --version` must print "PROGRAM VERSION", exit
# 0, and agree with the man page's header ("gmm VERSION"). Fails naming what is missing.
#
#   tests/check_man_pages.sh [BIN_DIR]      (default bin; make test runs it)
set -u
cd "$(dirname "$0")/.."
bin=${1:-bin}
programs=(gmm-train gmm-predict gmm-bench gmm-augment gmm-download-mnist)
failed=0
fail() { echo "check_man_pages: $*" >&2; failed=1; }

for prog in "${programs[@]}"; do
  page=man/$prog.1
  [ -x "$bin/$prog" ] || { fail "$bin/$prog not found (build it first)"; continue; }
  [ -f "$page" ] || { fail "$prog has no man page ($page)"; continue; }
  help=$("$bin/$prog" --help 2>&1) || fail "$prog --help exited with $?"
  if [ "$prog" = gmm-bench ]; then
    for sub in em spectral umap scale; do help+=$'\n'$("$bin/$prog" "$sub" --help 2>&1); done
  fi
  # the page as text: comment lines dropped, roff's \- and font escapes undone
  text=$(grep -v '^\.\\"' "$page" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g')
  missing=()
  for opt in $(grep -oE -- '--[a-z]([a-z0-9-]*[a-z0-9])?' <<<"$help" | sort -u); do
    grep -qE -- "(^|[^a-z0-9-])$opt([^a-z0-9-]|\$)" <<<"$text" || missing+=("$opt")
  done
  [ ${#missing[@]} -eq 0 ] || fail "$page lacks ${missing[*]} (printed by $prog --help)"

  version=$("$bin/$prog" --version 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || ! grep -qE "^$prog [0-9]+\.[0-9]+\.[0-9]+\$" <<<"$version"; then
    fail "$prog --version: expected '$prog X.Y.Z' and exit 0, got '$version' (exit $rc)"
  elif ! grep -qE "^\.TH .*\"gmm ${version#"$prog "}\"" "$page"; then
    fail "$page: its .TH line should name \"gmm ${version#"$prog "}\", as $prog --version does"
  fi
done
[ $failed -eq 0 ] && echo "check_man_pages: ${#programs[@]} programs, every --help option in its man page, versions agree"
exit $failed
