#!/usr/bin/env bash
# Checks that every C++ source in the repository is laid out as .clang-format
# says (Debian 12's clang-format 14). Prints each file that is not and exits 1;
# `scripts/check_format.sh --fix` rewrites them instead.
#
# Usage, from anywhere: scripts/check_format.sh [--fix]
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang-format >/dev/null 2>&1 ||
  { echo "check_format: clang-format is not installed (apt-get install clang-format)" >&2; exit 2; }

mapfile -t files < <(git ls-files '*.cc' '*.h' '*.cu' '*.cuh')
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# One clang-format run; it names each file and line it would change.
mapfile -t bad < <(clang-format --dry-run "${files[@]}" 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' | sort -u)
if ((${#bad[@]} > 0)); then
  printf 'check_format: %d file(s) differ from .clang-format; run scripts/check_format.sh --fix:\n' \
    "${#bad[@]}" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files follow .clang-format"
