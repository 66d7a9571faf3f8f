#!/usr/bin/env bash
# Installs what hcc needs from Debian 12's own packages (as root), skipping
# what is already there. Safe to run again.
#
#   scripts/setup.sh           build and test dependencies
#   scripts/setup.sh --bench   only what the benchmark reports add
#                              (matplotlib for the plots)
set -euo pipefail
if [ "${1:-}" = --bench ]; then
  pkgs=(python3-matplotlib)
else
  pkgs=(
    build-essential cmake ninja-build pkg-config python3 git
    clang-19 llvm-19-dev llvm-19-tools libclang-19-dev libclang-cpp19-dev
    libomp-19-dev flang-19 mlir-19-tools
    libopenmpi-dev openmpi-bin libhwloc-dev libpmix-dev
    zlib1g-dev libzstd-dev libedit-dev libffi-dev libxml2-dev libcurl4-openssl-dev
    clang-format-19 iproute2 procps python3-psutil
  )
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all dependencies present${1:+ ($1)}"
