#!/usr/bin/env bash
# Install ShardLab's build dependencies (Debian 12 packages only), then configure
# and build the `default` preset into build/.
#
# Idempotent: the apt step runs only when a package is missing, so a re-run is
# fast and works offline. Environment:
#   SHARDLAB_SKIP_APT=1   never touch apt (dependencies are installed some other way)
#
# Usage, from anywhere: scripts/bootstrap.sh [TARGET...]  (no target: build everything)
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

# Every build and test dependency. Qt6 (base, charts, svg) builds the GUI;
# Open MPI is the multi-host launcher of the CUDA replay backend. python3 runs the golden comparison tool and
# scripts/gen_synthetic_scenario.py; clang-format checks the code's layout (scripts/check_format.sh).
readonly PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  nlohmann-json3-dev libcli11-dev libfmt-dev libeigen3-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libboost-graph-dev libsqlite3-dev libsqlitecpp-dev
  qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev
  libopenmpi-dev openmpi-bin
  python3 python3-dev pybind11-dev clang-format
)

die() {
  printf 'bootstrap: error: %s\n' "$*" >&2
  exit 1
}

step() { printf '==> %s\n' "$*"; }

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

# Prints the packages of PACKAGES that dpkg does not report as installed.
missing_packages() {
  local pkg status
  for pkg in "${PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
    [[ "$status" == "installed" ]] || printf '%s\n' "$pkg"
  done
}

install_packages() {
  if [[ "${SHARDLAB_SKIP_APT:-0}" == "1" ]]; then
    step "skipping package installation (SHARDLAB_SKIP_APT=1)"
    return
  fi
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    die "apt-get/dpkg not found: this script supports Debian 12. Install these packages" \
        "by other means, then re-run with SHARDLAB_SKIP_APT=1: ${PACKAGES[*]}"
  fi

  local missing
  mapfile -t missing < <(missing_packages)
  if ((${#missing[@]} == 0)); then
    step "all ${#PACKAGES[@]} packages already installed"
    return
  fi

  local -a sudo=()
  if [[ "$(id -u)" != "0" ]]; then
    command -v sudo >/dev/null 2>&1 ||
      die "not root and sudo is not available; as root run: apt-get install ${missing[*]}"
    sudo=(sudo env DEBIAN_FRONTEND=noninteractive)
  fi

  step "installing packages: ${missing[*]}"
  "${sudo[@]}" apt-get update -q || die "apt-get update failed (network or apt sources?)"
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" ||
    die "apt-get install failed for: ${missing[*]}"

  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} == 0)) || die "still not installed after apt-get: ${missing[*]}"
}

step "installing packages"
install_packages

command -v cmake >/dev/null 2>&1 || die "cmake not found"
command -v ninja >/dev/null 2>&1 || die "ninja not found"

step "configuring (cmake --preset default)"
cmake --preset default ||
  die "configure failed (if build/ was configured by another generator, remove build/ and re-run)"

# Targets given as arguments (e.g. `scripts/bootstrap.sh shardlab`) build only
# what they need: the README's first run builds the CLI alone; no argument
# builds everything (tests, benchmarks, the workbench).
if (($# > 0)); then
  step "building $* (cmake --build --preset default --target $*)"
  cmake --build --preset default --target "$@" || die "build failed"
else
  step "building (cmake --build --preset default)"
  cmake --build --preset default || die "build failed"
fi

step "done: binaries are under build/ (CLI: build/cli/shardlab)"
