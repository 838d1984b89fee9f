#!/usr/bin/env bash
# Cross-builds rbfnet's CPU build for aarch64 (the Jetson's CPU side), runs the whole ctest
# suite under qemu-aarch64, and checks that models written by the x86-64 build load and predict
# identically on aarch64 (and the other way round). Installs what is missing; safe to rerun.
#
#   bash scripts/ci-aarch64.sh            # set-up, build, tests, cross-platform model check
#   bash scripts/ci-aarch64.sh setup      # the set-up alone (packages, sysroot overlay, Eigen 3.3)
#   bash scripts/ci-aarch64.sh models     # the model check alone, on the builds already made
#
# Environment: RBF_JOBS (default 2), RBF_AARCH64_BUILD_DIR (default build/aarch64),
# RBF_HOST_BUILD_DIR (the x86-64 build whose rbfnet writes the models; default build/release,
# configured and built here when it has no rbfnet yet).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${RBF_JOBS:-2}"
build="${RBF_AARCH64_BUILD_DIR:-build/aarch64}"
host_build="${RBF_HOST_BUILD_DIR:-build/release}"
overlay="$build-sysroot"
triple=aarch64-linux-gnu

fail() { echo "ci-aarch64: FAILED: $*" >&2; exit 1; }
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# --- 1. cross toolchain, qemu and the arm64 libraries -----------------------------------------
# libspdlog-dev, libfmt-dev and the runtime libraries are Multi-Arch: same and install beside
# the amd64 ones; libyaml-cpp-dev:arm64 would replace libyaml-cpp-dev:amd64, so only its
# runtime library is installed and the -dev package is unpacked into an overlay (step 2).
host_packages=(g++-$triple qemu-user)
arm_packages=(libspdlog-dev:arm64 libfmt-dev:arm64 libgomp1:arm64 libstdc++6:arm64)
apt_log="$(mktemp)"
trap 'rm -f "$apt_log"' EXIT
apt_update() {
  $sudo apt-get update -qq > "$apt_log" 2>&1 || { cat "$apt_log" >&2; fail "apt-get update failed (it fetches the arm64 package lists)"; }
}
# The runtime library package that libyaml-cpp-dev:arm64 depends on (libyaml-cpp0.7 on Debian 12).
yaml_library() {
  apt-cache depends libyaml-cpp-dev:arm64 2> /dev/null \
    | sed -n 's/^ *Depends: *\(libyaml-cpp[0-9.]*\)\(:arm64\)\?$/\1/p' | head -n1
}
setup_packages() {
  local missing=() updated=0 yaml_lib
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "== ci-aarch64: enabling the arm64 architecture in dpkg"
    $sudo dpkg --add-architecture arm64 || fail "cannot enable the arm64 architecture in dpkg"
    apt_update
    updated=1
  fi
  yaml_lib="$(yaml_library)"
  if [ -z "$yaml_lib" ] && [ "$updated" -eq 0 ]; then apt_update; updated=1; yaml_lib="$(yaml_library)"; fi
  [ -n "$yaml_lib" ] || fail "apt knows no libyaml-cpp-dev:arm64 (are the arm64 package lists there?)"
  for p in "${host_packages[@]}" "${arm_packages[@]}" "$yaml_lib:arm64"; do
    installed "$p" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== ci-aarch64: installing ${missing[*]}"
  [ "$updated" -eq 1 ] || apt_update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    > "$apt_log" 2>&1 || { cat "$apt_log" >&2; fail "cannot install ${missing[*]}; the aarch64 build needs them"; }
}

# --- 2. the sysroot overlay: libyaml-cpp-dev:arm64 and its library, unpacked -------------------
setup_overlay() {
  local version stamp="$overlay/.yaml-cpp-version"
  version="$(apt-cache policy libyaml-cpp-dev:arm64 | sed -n 's/^ *Candidate: *//p')"
  [ -n "$version" ] && [ "$version" != "(none)" ] || fail "apt knows no libyaml-cpp-dev:arm64"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then return 0; fi
  echo "== ci-aarch64: unpacking libyaml-cpp-dev:arm64 $version into $overlay"
  local debs
  debs="$(mktemp -d)"
  # The library package shares the -dev package's source version (its name carries the ABI).
  local lib
  lib="$(yaml_library)"
  [ -n "$lib" ] || fail "cannot tell which library package libyaml-cpp-dev:arm64 needs"
  (cd "$debs" && apt-get download -qq "libyaml-cpp-dev:arm64=$version" "$lib:arm64=$version" 2>&1 \
     | grep -v "unsandboxed as root" || true)
  ls "$debs"/*.deb > /dev/null 2>&1 || fail "apt-get download of libyaml-cpp-dev:arm64 and $lib:arm64 failed"
  rm -rf "$overlay"
  mkdir -p "$overlay"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$overlay" || fail "dpkg-deb -x $deb failed"; done
  rm -rf "$debs"
  [ -d "$overlay/usr/lib/$triple/cmake/yaml-cpp" ] || fail "the overlay has no yaml-cpp CMake package"
  echo "$version" > "$stamp"
}

# --- 2b. Eigen 3.3 headers, as on JetPack 4.6 (Eigen 3.3.4) ---------------------------------------
# Debian 12 has only Eigen 3.4, whose additions (slicing, reshaped, STL iterators...) do not
# exist on the Jetson; the aarch64 build compiles against Eigen 3.3 so that using one fails
# here. Eigen 3.3 releases after 3.3.4 fix bugs only; the eigenpip wheel on PyPI ships 3.3.7.
eigen_version=3.3.7
setup_eigen33() {
  local dir="$overlay/usr/include/eigen3" cmake_dir="$overlay/usr/share/eigen3/cmake"
  if [ -f "$cmake_dir/Eigen3ConfigVersion.cmake" ] && grep -q "$eigen_version" "$cmake_dir/Eigen3ConfigVersion.cmake"; then
    return 0
  fi
  echo "== ci-aarch64: unpacking Eigen $eigen_version headers into $overlay"
  command -v python3 > /dev/null 2>&1 || fail "python3 (with pip) is needed to fetch Eigen $eigen_version"
  local wheels
  wheels="$(mktemp -d)"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest "$wheels" eigenpip==0.1.0 \
    || fail "cannot fetch Eigen $eigen_version (the eigenpip 0.1.0 wheel) from PyPI"
  python3 -m zipfile -e "$wheels"/eigenpip-0.1.0-*.whl "$wheels/x" || fail "cannot unpack the eigenpip wheel"
  grep -q "define EIGEN_MINOR_VERSION 7" "$wheels/x/eigenpip/eigen/Eigen/src/Core/util/Macros.h" \
    && grep -q "define EIGEN_MAJOR_VERSION 3" "$wheels/x/eigenpip/eigen/Eigen/src/Core/util/Macros.h" \
    || fail "the eigenpip wheel does not hold Eigen $eigen_version"
  rm -rf "$dir" "$cmake_dir"
  mkdir -p "$dir" "$cmake_dir"
  cp -r "$wheels/x/eigenpip/eigen/Eigen" "$wheels/x/eigenpip/eigen/unsupported" "$dir/"
  rm -rf "$wheels"
  cat > "$cmake_dir/Eigen3Config.cmake" <<'CONFIG'
# Eigen 3.3 headers for rbfnet's aarch64 CI build (written by scripts/ci-aarch64.sh).
get_filename_component(_eigen33_include "${CMAKE_CURRENT_LIST_DIR}/../../../include/eigen3" ABSOLUTE)
if(NOT TARGET Eigen3::Eigen)
  add_library(Eigen3::Eigen INTERFACE IMPORTED)
  set_target_properties(Eigen3::Eigen PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_eigen33_include}")
endif()
set(EIGEN3_INCLUDE_DIR "${_eigen33_include}")
set(EIGEN3_INCLUDE_DIRS "${_eigen33_include}")
CONFIG
  cat > "$cmake_dir/Eigen3ConfigVersion.cmake" <<VERSION
set(PACKAGE_VERSION $eigen_version)
set(PACKAGE_VERSION_COMPATIBLE FALSE)
if(PACKAGE_FIND_VERSION_MAJOR EQUAL 3 AND NOT PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
VERSION
}

# --- 3. configure, build, test under qemu ------------------------------------------------------
# rbfnet restarts itself through /proc/self/exe to get passive OpenMP waiting unless the
# environment sets OMP_WAIT_POLICY; under qemu-user that restart would run the program without
# the emulator's options (its CPU model, its library prefix), so the policy is set here.
export OMP_WAIT_POLICY=passive
# Unlike the test suite's other trees this one is not a unity build: each source compiles on
# its own, as in a user's build, so a file that does not include what it uses fails here.
build_and_test() {
  echo "== ci-aarch64: configuring $build"
  mkdir -p "$build"
  cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/$triple.cmake" \
    -DRBF_AARCH64_OVERLAY="$root/$overlay" -DEigen3_DIR="$root/$overlay/usr/share/eigen3/cmake" \
    -DCMAKE_BUILD_TYPE=Release -DRBF_CUDA=OFF \
    -DRBF_BUILD_BENCH=OFF > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; fail "configure"; }
  grep -A14 "rbfnet .* configuration" "$build.configure.log" || true
  grep -q "Eigen *: $eigen_version" "$build.configure.log" || fail "the aarch64 build did not pick Eigen $eigen_version"
  grep -q "CMAKE_CROSSCOMPILING_EMULATOR:STRING=.*qemu-aarch64" "$build/CMakeCache.txt" \
    || fail "no qemu-aarch64 emulator configured; the tests could not run"
  echo "== ci-aarch64: building $build"
  cmake --build "$build" -j "$jobs" || fail "aarch64 build"
  $triple-readelf -h "$build/app/rbfnet" | grep -q "Machine: *AArch64" || fail "$build/app/rbfnet is not an aarch64 program"
  echo "== ci-aarch64: tests under qemu-aarch64"
  # Emulation is 10-30x slower than native: allow each test generously more time.
  (cd "$build" && ctest --output-on-failure -j "$jobs" --timeout 900) || fail "tests under qemu-aarch64"
}

# --- 4. models cross the architectures ----------------------------------------------------------
# x86-64 trains and writes models; aarch64 loads them and predicts (and evaluates). Predictions
# are printed exactly (shortest round-trip text), so they must agree to 1e-12 relative: the two
# architectures' exp and fused multiply-adds differ in the last bits of a double. Class labels
# and every other text field, and the evaluation reports, must be byte-identical. Then the
# reverse: a model trained on aarch64 predicts on x86-64.
emulator() {
  sed -n 's/^CMAKE_CROSSCOMPILING_EMULATOR:STRING=//p' "$build/CMakeCache.txt" | tr ';' ' '
}
cross_models() {
  local x86="$host_build/app/rbfnet" arm="$root/$build/app/rbfnet" work="$build/cross-models"
  if [ ! -x "$x86" ]; then
    echo "== ci-aarch64: building the x86-64 rbfnet in $host_build"
    cmake -S . -B "$host_build" -DCMAKE_BUILD_TYPE=Release -DRBF_CUDA=OFF > "$host_build.configure.log" 2>&1 \
      || { cat "$host_build.configure.log"; fail "configure $host_build"; }
    cmake --build "$host_build" -j "$jobs" --target rbfnet || fail "x86-64 build"
  fi
  local qemu
  qemu="$(emulator)"
  rm -rf "$work"
  mkdir -p "$work"
  echo "== ci-aarch64: models written on x86-64, read on aarch64"
  # dataset target nodes
  local cases=("iris species 30" "diabetes progression 40")
  local c name target nodes failed=0
  for c in "${cases[@]}"; do
    read -r name target nodes <<< "$c"
    local data="data/$name.csv"
    "$x86" train --data "$data" --target "$target" --nodes "$nodes" --validation 0 --quiet --log-level warn \
      --out "$work/$name-x86.rbfn" > /dev/null || fail "x86-64 training on $data"
    "$x86" predict --model "$work/$name-x86.rbfn" --data "$data" --out "$work/$name-x86.x86.csv" 2>> "$work/stderr.log"
    $qemu "$arm" predict --model "$work/$name-x86.rbfn" --data "$data" --out "$work/$name-x86.arm.csv" 2>> "$work/stderr.log" \
      || fail "aarch64 cannot predict with the x86-64 model $work/$name-x86.rbfn"
    "$x86" evaluate --model "$work/$name-x86.rbfn" --data "$data" --target "$target" > "$work/$name-x86.x86.eval"
    $qemu "$arm" evaluate --model "$work/$name-x86.rbfn" --data "$data" --target "$target" > "$work/$name-x86.arm.eval" \
      || fail "aarch64 cannot evaluate the x86-64 model $work/$name-x86.rbfn"
    compare_numbers "$work/$name-x86.x86.csv" "$work/$name-x86.arm.csv" || failed=1
    compare "$work/$name-x86.x86.eval" "$work/$name-x86.arm.eval" || failed=1

    $qemu "$arm" train --data "$data" --target "$target" --nodes "$nodes" --validation 0 --quiet --log-level warn \
      --out "$work/$name-arm.rbfn" > /dev/null || fail "aarch64 training on $data"
    $qemu "$arm" predict --model "$work/$name-arm.rbfn" --data "$data" --out "$work/$name-arm.arm.csv" 2>> "$work/stderr.log"
    "$x86" predict --model "$work/$name-arm.rbfn" --data "$data" --out "$work/$name-arm.x86.csv" 2>> "$work/stderr.log" \
      || fail "x86-64 cannot predict with the aarch64 model $work/$name-arm.rbfn"
    compare_numbers "$work/$name-arm.arm.csv" "$work/$name-arm.x86.csv" || failed=1
  done
  [ "$failed" -eq 0 ] || fail "predictions differ between x86-64 and aarch64 (files in $work)"
  echo "cross-platform models: x86-64 and aarch64 predictions agree (to 1e-12), evaluations identical"
}

# compare_numbers A B: the same CSV shape and text, numbers within 1e-12 relative (1e-300
# absolute), or report the first differing line.
compare_numbers() {
  if awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; next }
    { if (!(FNR in a)) { print "line " FNR ": only in the second file"; exit 1 }
      split(a[FNR], x, ","); if (length(x) != NF) { print "line " FNR ": field count differs"; exit 1 }
      for (i = 1; i <= NF; i++) {
        if (x[i] == $i) continue
        if (x[i] ~ /^[-+0-9.eE]+$/ && $i ~ /^[-+0-9.eE]+$/) {
          d = x[i] - $i; if (d < 0) d = -d; m = (x[i] < 0 ? -x[i] : x[i]); if (m < 1e-300) m = 1e-300
          if (d / m <= 1e-12) continue
        }
        print "line " FNR " field " i ": " x[i] " against " $i; exit 1 } }
    END { if (FNR != n) { print "line counts differ"; exit 1 } }' "$1" "$2" >&2; then
    echo "  agree: $(basename "$1") $(basename "$2") ($(wc -l < "$1") lines)"
    return 0
  fi
  echo "  DIFFERENT: $1 $2" >&2
  return 1
}

# compare A B: byte-identical, or report the first differing lines.
compare() {
  if cmp -s "$1" "$2"; then
    echo "  identical: $(basename "$1") $(basename "$2") ($(wc -l < "$1") lines)"
    return 0
  fi
  echo "  DIFFERENT: $1 $2" >&2
  diff "$1" "$2" | head -n 10 >&2
  return 1
}

# step NAME FUNCTION: runs it and says how long it took (CI time is budgeted).
step() {
  local t0=$SECONDS
  "$2"
  echo "== ci-aarch64: $1: $((SECONDS - t0)) s"
}
start=$SECONDS
step "packages" setup_packages
step "sysroot overlay" setup_overlay
step "Eigen 3.3 headers" setup_eigen33
if [ "${1:-}" = "setup" ]; then
  echo "== ci-aarch64: set-up done in $((SECONDS - start)) s"
  exit 0
elif [ "${1:-}" = "models" ]; then
  [ -x "$build/app/rbfnet" ] || fail "'models' needs a finished aarch64 build in $build; run without it first"
else
  step "build and tests under qemu" build_and_test
fi
step "cross-platform models" cross_models
echo "== ci-aarch64: done in $((SECONDS - start)) s"
