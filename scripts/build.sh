#!/usr/bin/env bash
# Configures and builds hcc into ${HCC_BUILD_DIR:-build}.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${HCC_BUILD_DIR:-$src/build}
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_INSTALL_PREFIX="${HCC_PREFIX:-$build/install}" >/dev/null
cmake --build "$build" -j"$(nproc)"
