#!/usr/bin/env bash
# Installs what is missing, builds rbfnet, and either trains on a bundled dataset (default)
# or runs the whole test suite (`test`). Used verbatim by the README and by CI.
set -euo pipefail

mode="${1:-run}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${RBF_JOBS:-2}"

packages=(cmake make g++ pkg-config libeigen3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
          doctest-dev libcli11-dev libfast-float-dev gnuplot-nox python3-venv python3-dev)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "== installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# configure_and_build DIR [cmake args...]
configure_and_build() {
  local dir="$1"; shift
  echo "== configuring $dir $*"
  cmake -S . -B "$dir" "$@" > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
  grep -A15 "rbfnet .* configuration" "$dir.configure.log" || true
  echo "== building $dir"
  cmake --build "$dir" -j "$jobs"
}

# The Python package (python/): a virtual environment under build/, scikit-learn and the build
# tools from PyPI, `pip install .` (CMake build reused across runs), then its pytest suite,
# which checks model files against the CPU build's rbfnet binary.
python_tests() {
  local venv=build/venv
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  echo "== Python: installing the test requirements and the package into $venv"
  "$venv/bin/pip" install -q --disable-pip-version-check numpy scikit-learn pandas pytest scikit-build-core pybind11
  CMAKE_BUILD_PARALLEL_LEVEL="$jobs" "$venv/bin/pip" install -q --disable-pip-version-check \
    --no-build-isolation -C build-dir=build/python-wheel .
  echo "== tests: Python package (pytest)"
  RBFNET_CLI="$root/build/release/app/rbfnet" "$venv/bin/python" -m pytest -q python/tests
}

have_nvcc() { command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }

install_missing
mkdir -p build

case "$mode" in
  run)
    configure_and_build build/release -DCMAKE_BUILD_TYPE=Release -DRBF_CUDA=AUTO
    bin=build/release/app/rbfnet
    "$bin" info
    echo "== training on data/iris.csv with configs/default.yaml"
    "$bin" train --data data/iris.csv --target species --config configs/default.yaml \
      --out build/iris.rbfn --log-iter build/iris-iterations.csv
    echo "== evaluating build/iris.rbfn on data/iris.csv"
    "$bin" evaluate --model build/iris.rbfn --data data/iris.csv --target species
    ;;
  test)
    configure_and_build build/release -DCMAKE_BUILD_TYPE=Release -DRBF_CUDA=OFF
    echo "== tests: CPU build"
    (cd build/release && ctest --output-on-failure -j "$jobs")
    python_tests
    if have_nvcc; then
      configure_and_build build/cuda -DCMAKE_BUILD_TYPE=Release -DRBF_CUDA=ON -DRBF_BUILD_BENCH=OFF
      echo "== tests: CUDA build (GPU cases are skipped without a device)"
      (cd build/cuda && ctest --output-on-failure -j "$jobs")
    else
      echo "== no nvcc: skipping the CUDA build"
    fi
    configure_and_build build/asan -DCMAKE_BUILD_TYPE=Debug -DRBF_CUDA=OFF -DRBF_SANITIZE=ON -DRBF_BUILD_BENCH=OFF
    echo "== tests: ASan + UBSan build"
    (cd build/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j "$jobs")
    # Jetson TX2 checks: aarch64 cross build + tests under qemu + cross-platform models, and the
    # sm_62 compile of the CUDA sources. Either failing (an arm64 package that cannot be
    # installed included) fails the run. RBF_JETSON_CHECKS=0 skips them outside CI.
    if [ "${RBF_JETSON_CHECKS:-1}" = "0" ] && [ "${CI:-}" != "true" ]; then
      echo "== Jetson checks SKIPPED (RBF_JETSON_CHECKS=0)"
    else
      echo "== Jetson TX2: aarch64 build, tests under qemu, cross-platform models"
      RBF_AARCH64_BUILD_DIR=build/aarch64 RBF_HOST_BUILD_DIR=build/release bash scripts/ci-aarch64.sh
      echo "== Jetson TX2: CUDA sources for sm_62"
      RBF_TX2_PROXY_DIR=build/tx2-proxy bash scripts/ci-tx2-nvcc.sh
    fi
    echo "== fuzzing: CSV reader, config loader, model reader (libFuzzer, ${RBF_FUZZ_SECONDS:-60} s each)"
    bash scripts/fuzz.sh
    ;;
  *)
    echo "usage: $0 [run|test]" >&2
    exit 2
    ;;
esac
