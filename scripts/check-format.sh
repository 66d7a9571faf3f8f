#!/usr/bin/env bash
# check-format.sh CLANG_FORMAT [--fix]: fails on any formatting difference in
# the project's C/C++ sources (runtime/: K&R 4 spaces, compiler/: LLVM).
set -euo pipefail
cf=$1; fix=${2:-}
cd "$(dirname "$0")/.."
files=$(git ls-files 'runtime/*.[ch]' 'include/*.h' 'compiler/*.c' \
        'compiler/*.cpp' 'compiler/*.h' 'test/runtime/*.[ch]')
[ -n "$files" ] || exit 0
if [ "$fix" = --fix ]; then $cf -i $files; exit 0; fi
$cf --dry-run -Werror $files
