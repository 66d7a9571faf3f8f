#!/usr/bin/env bash
# The whole test suite from a fresh machine: set up, build, run every test.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/scripts/setup.sh"
"$src/scripts/build.sh"
build=${HCC_BUILD_DIR:-$src/build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI 4.1 fails when two mpiruns race to create its per-user session
# directory, or when one creates it while another that ends removes it
# (which it does when no directory is left in it). Make it before tests run
# in parallel, with a directory in it that keeps it (lit does its own).
ompi_top=${TMPDIR:-/tmp}/ompi.$(hostname -s).$(id -u)
mkdir -p -m 700 "$ompi_top/keep" # a directory: files are removed
cd "$build"
ctest --output-on-failure --timeout 900 "$@"
