#!/usr/bin/env bash
# Installs what is missing, builds rbfnet, and either trains on a bundled dataset (default)
# or runs the whole test suite (`test`). Used verbatim by the README and by CI.
set -euo pipefail

mode="${1:-run}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${RBF_JOBS:-2}"

packages=(cmake make ninja-build ccache g++ pkg-config libeigen3-dev libyaml-cpp-dev libspdlog-dev
          libfmt-dev doctest-dev libcli11-dev libfast-float-dev gnuplot-nox python3-venv python3-dev)
# The test suite also needs: clang with its sanitizer and libFuzzer runtimes and OpenMP (the
# sanitizer tree and the fuzzers, the sm_62 proxy compile), and the aarch64 cross compiler
# with qemu (the Jetson checks). Packages a release does not have are left out here (the
# scripts that need them say what is missing).
test_packages=(clang libclang-rt-dev libomp-dev g++-aarch64-linux-gnu qemu-user)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

install_missing() {
  local missing=() p
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  local known=()
  for p in "${missing[@]}"; do
    if apt-cache show "$p" > /dev/null 2>&1; then known+=("$p"); else echo "== $p: not in this release's packages, skipped"; fi
  done
  [ ${#known[@]} -eq 0 ] && return 0
  echo "== installing: ${known[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${known[@]}"
}

# configure_and_build DIR [cmake args...]
configure_and_build() {
  local dir="$1"; shift
  echo "== configuring $dir $*"
  cmake -S . -B "$dir" "$@" > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
  grep -A16 "rbfnet .* configuration" "$dir.configure.log" || true
  echo "== building $dir"
  cmake --build "$dir" -j "$jobs"
}

have_nvcc() { command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }
# A CUDA device this machine can run on (nvidia-smi answers with one).
have_device() { nvidia-smi --query-gpu=compute_cap --format=csv,noheader > /dev/null 2>&1; }

# --- the test suite's stages ---------------------------------------------------------------------
# Each stage's time is printed as it ends and again in the summary (docs/BUILDING.md records them).
stage_names=()
stage_seconds=()
stage() {
  local name="$1" t0=$SECONDS; shift
  echo "== stage: $name"
  "$@"
  stage_names+=("$name")
  stage_seconds+=($((SECONDS - t0)))
  echo "== stage: $name: $((SECONDS - t0)) s"
}

# Network-bound set-up runs in the background while the first tree compiles, and the Python
# tests while the second does; a stage that needs one waits for it (and shows its log). Each
# writes build/<name>.log.
declare -A background_pids
# A failing stage ends the run: its background set-up ends with it.
trap 'for p in "${background_pids[@]}"; do kill "$p" 2> /dev/null || true; done' EXIT
background() {
  local name="$1"; shift
  ( "$@" ) > "build/$name.log" 2>&1 &
  background_pids[$name]=$!
}
wait_for() {
  local name="$1" status=0
  wait "${background_pids[$name]}" || status=$?
  unset "background_pids[$name]"
  cat "build/$name.log"
  [ "$status" -eq 0 ] || { echo "== $name FAILED (exit $status)" >&2; return "$status"; }
}

venv=build/venv
# The build tools first (the CI tree's configuration needs pybind11), then the test
# requirements in the background; never two pip processes in the venv at once.
python_build_tools() {
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check scikit-build-core pybind11
}
python_requirements() {
  "$venv/bin/pip" install -q --disable-pip-version-check numpy scikit-learn pandas pytest
}

# The CI and sanitizer trees are unity builds (CMAKE_UNITY_BUILD: each target's sources
# compiled eight to a file), which parses Eigen, spdlog and doctest a fraction as often and
# instantiates their templates fewer times: the sanitizer tree compiles in 330 s instead of
# 495. The aarch64 tree, like a release build (the `run` mode, `pip install`, a plain CMake
# build), compiles each source on its own, so a file that does not include what it uses fails
# there.
# The CI tree: one Release build for the CPU tests, the CUDA build and its tests (one
# architecture, sm_90: the tensor-core path; the sm_62 proxy covers the other) and the Python
# module, which `pip install .` then takes from the same tree instead of compiling it again.
ci_tree=build/ci
ci_tree_build() {
  local cuda=(-DRBF_CUDA=OFF)
  if have_nvcc; then cuda=(-DRBF_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90); fi
  ci_tree_args=(-DCMAKE_BUILD_TYPE=Release "${cuda[@]}" -DRBF_PYTHON=ON -DRBF_BUILD_TESTS=ON -DRBF_BUILD_BENCH=ON
                -DCMAKE_UNITY_BUILD=ON
                -DPython_EXECUTABLE="$root/$venv/bin/python"
                -Dpybind11_DIR="$("$venv/bin/python" -m pybind11 --cmakedir)")
  configure_and_build "$ci_tree" "${ci_tree_args[@]}"
}
ci_tree_tests() {
  echo "== tests: CI tree (CPU, and CUDA when built: GPU cases are skipped without a device)"
  (cd "$ci_tree" && ctest --output-on-failure -j "$jobs")
}
# The Python package: `pip install .` into the virtual environment, reusing the CI tree (its
# configuration is the one above, so nothing is compiled again), then its pytest suite, which
# checks model files against the CI tree's rbfnet binary.
python_tests() {
  local defines=() a
  for a in "${ci_tree_args[@]}"; do defines+=(-C "cmake.define.${a#-D}"); done
  echo "== Python: pip install . (build tree $ci_tree)"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation --no-deps \
    -C build-dir="$ci_tree" "${defines[@]}" .
  echo "== tests: Python package (pytest)"
  RBFNET_CLI="$root/$ci_tree/app/rbfnet" "$venv/bin/python" -m pytest -q python/tests
}

# The sanitizer tree: clang with ASan + UBSan for the tests, and libFuzzer's coverage for the
# fuzz targets (scripts/fuzz.sh runs them from this tree).
sanitize_tree=build/sanitize
sanitize_tree_build() {
  configure_and_build "$sanitize_tree" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only -DRBF_CUDA=OFF \
    -DRBF_SANITIZE=ON -DRBF_FUZZ=ON -DRBF_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON
}
sanitize_tree_tests() {
  echo "== tests: ASan + UBSan build"
  (cd "$sanitize_tree" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j "$jobs")
}
fuzz() {
  echo "== fuzzing: CSV reader, config loader, model reader (libFuzzer, ${RBF_FUZZ_SECONDS:-60} s each)"
  RBF_FUZZ_BUILD_DIR="$sanitize_tree" bash scripts/fuzz.sh
}

jetson_checks_skipped() { [ "${RBF_JETSON_CHECKS:-1}" = "0" ] && [ "${CI:-}" != "true" ]; }
aarch64_checks() {
  wait_for aarch64-setup
  echo "== Jetson TX2: aarch64 build, tests under qemu, cross-platform models"
  RBF_AARCH64_BUILD_DIR=build/aarch64 RBF_HOST_BUILD_DIR="$ci_tree" bash scripts/ci-aarch64.sh
}
tx2_check() {
  echo "== Jetson TX2: CUDA sources for sm_62"
  wait_for tx2-nvcc
}

# Test counts: doctest cases (each group's count, cmake/RbfDoctestGroupsAdd.cmake) plus the
# other ctest entries (command-line, install, layering tests), per tree.
count_tests() {
  local dir="$1" doctest_cases entries doctest_entries
  doctest_cases=$(cat "$dir"/tests/*_groups.cmake 2> /dev/null | sed -n 's/^# .*: \([0-9]*\) test cases.*/\1/p' | awk '{s+=$1} END {print s+0}')
  entries=$(cd "$dir" && ctest -N | sed -n 's/^Total Tests: //p')
  doctest_entries=$(cd "$dir" && ctest -N -L doctest | sed -n 's/^Total Tests: //p')
  echo "  $dir: $((doctest_cases + entries - doctest_entries)) test cases ($doctest_cases doctest cases in $doctest_entries ctest entries, $((entries - doctest_entries)) other ctest entries)"
}

summary() {
  local i total=0
  echo "== summary: stage times (s)"
  for i in "${!stage_names[@]}"; do
    printf '  %-44s %5d\n' "${stage_names[$i]}" "${stage_seconds[$i]}"
    total=$((total + stage_seconds[i]))
  done
  printf '  %-44s %5d\n' "total" "$SECONDS"
  echo "== summary: tests per tree"
  for d in "$ci_tree" "$sanitize_tree" build/aarch64; do
    [ -f "$d/CTestTestfile.cmake" ] && count_tests "$d"
  done
  if command -v ccache > /dev/null 2>&1; then echo "== summary: compiler cache"; ccache -s | sed -n '1,8p'; fi
}

mkdir -p build
case "$mode" in
  run)
    install_missing "${packages[@]}"
    # A machine with a CUDA device builds for its architecture only; without one, for every
    # architecture the toolkit supports (the program may be copied to another machine).
    cuda=AUTO
    if have_device; then cuda=DEVICE; fi
    configure_and_build build/release -DCMAKE_BUILD_TYPE=Release -DRBF_CUDA="$cuda"
    bin=build/release/app/rbfnet
    "$bin" info
    echo "== training on data/iris.csv with configs/default.yaml"
    "$bin" train --data data/iris.csv --target species --config configs/default.yaml \
      --out build/iris.rbfn --log-iter build/iris-iterations.csv
    echo "== evaluating build/iris.rbfn on data/iris.csv"
    "$bin" evaluate --model build/iris.rbfn --data data/iris.csv --target species
    ;;
  test)
    stage "packages" install_missing "${packages[@]}" "${test_packages[@]}"
    export CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}"
    # The compiler cache: paths below the clone are hashed relative to it, and a miss costs no
    # extra preprocessor run (depend mode, from the compiler's own dependency output).
    export CCACHE_BASEDIR="$root" CCACHE_DEPEND="${CCACHE_DEPEND:-true}"
    stage "Python build tools" python_build_tools
    background python-requirements python_requirements
    if jetson_checks_skipped; then
      echo "== Jetson checks SKIPPED (RBF_JETSON_CHECKS=0)"
    else
      background aarch64-setup env RBF_AARCH64_BUILD_DIR=build/aarch64 bash scripts/ci-aarch64.sh setup
      background tx2-nvcc bash scripts/ci-tx2-nvcc.sh
    fi
    stage "CI tree: build" ci_tree_build
    stage "CI tree: tests" ci_tree_tests
    # pip and pytest keep one core busy at most: they run beside the sanitizer tree's build.
    stage "Python test requirements" wait_for python-requirements
    background python python_tests
    stage "sanitizer tree: build" sanitize_tree_build
    stage "Python: pip install . and pytest (beside the sanitizer build)" wait_for python
    stage "sanitizer tree: tests" sanitize_tree_tests
    stage "fuzzing" fuzz
    if ! jetson_checks_skipped; then
      stage "aarch64: build, tests under qemu, models" aarch64_checks
      stage "sm_62 proxy compile" tx2_check
    fi
    summary
    ;;
  *)
    echo "usage: $0 [run|test]" >&2
    exit 2
    ;;
esac
