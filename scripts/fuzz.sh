#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang and runs each for a bounded time; fails when
# any of them finds a crash, a leak, a timeout or an out-of-memory input, and prints its path.
#
#   bash scripts/fuzz.sh                      # install clang if missing, build, fuzz 60 s per target
#   RBF_FUZZ_SECONDS=600 bash scripts/fuzz.sh fuzz_csv    # one target, longer
#
# Environment: RBF_FUZZ_SECONDS (default 60, per target; the targets run side by side),
# RBF_FUZZ_BUILD_DIR (default build/fuzz; a tree already configured with -DRBF_FUZZ=ON, such
# as the test suite's sanitizer tree, is built as it is), RBF_JOBS (default 2).
# New inputs the fuzzer finds go to $RBF_FUZZ_BUILD_DIR/corpus/<target>/, reproducers of
# failures to $RBF_FUZZ_BUILD_DIR/artifacts/; the seeds in fuzz/corpus/ are only read.
# Reproduce a failure with: $RBF_FUZZ_BUILD_DIR/fuzz/<target> <reproducer>
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${RBF_FUZZ_SECONDS:-60}"
build="${RBF_FUZZ_BUILD_DIR:-build/fuzz}"
jobs="${RBF_JOBS:-2}"
all_targets=(fuzz_csv fuzz_config fuzz_model)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
for target in "${targets[@]}"; do
  case " ${all_targets[*]} " in
    *" $target "*) ;;
    *) echo "usage: $0 [${all_targets[*]}]..." >&2; exit 2 ;;
  esac
done

# Longest input per target: enough for several rows, sections or model arrays, small enough
# that each run executes many inputs. No input that short may make the readers allocate more
# than -malloc_limit_mb at once: a size field is never trusted before it is checked.
declare -A max_len=([fuzz_csv]=4096 [fuzz_config]=2048 [fuzz_model]=8192)

# --- 1. clang with the libFuzzer runtime ------------------------------------------------------
can_fuzz() {
  command -v clang++ > /dev/null 2>&1 || return 1
  local probe
  probe="$(mktemp -d)"
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
    > "$probe/probe.cpp"
  clang++ -fsanitize=fuzzer,address "$probe/probe.cpp" -o "$probe/probe" > /dev/null 2>&1
  local status=$?
  rm -rf "$probe"
  return $status
}
if ! can_fuzz; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "== fuzz: installing clang and its libFuzzer runtime"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang
  # Debian 12 ships the sanitizer and libFuzzer runtimes separately; older releases bundle them.
  version="$(clang++ --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)"
  if apt-cache show "libclang-rt-$version-dev" > /dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "libclang-rt-$version-dev"
  fi
  can_fuzz || { echo "fuzz: FAILED: clang++ cannot link -fsanitize=fuzzer,address" >&2; exit 1; }
fi

# --- 2. build ---------------------------------------------------------------------------------
if grep -qx "RBF_FUZZ:BOOL=ON" "$build/CMakeCache.txt" 2> /dev/null; then
  echo "== fuzz: using the fuzzing tree $build as configured"
else
  echo "== fuzz: configuring $build"
  cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only -DRBF_FUZZ=ON -DRBF_CUDA=OFF \
    -DRBF_BUILD_TESTS=OFF -DRBF_BUILD_BENCH=OFF > "$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; exit 1; }
fi
echo "== fuzz: building ${targets[*]}"
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

# --- 3. run, side by side ---------------------------------------------------------------------
mkdir -p "$build/artifacts"
declare -A pids
for target in "${targets[@]}"; do
  name="${target#fuzz_}"
  mkdir -p "$build/corpus/$name"
  echo "== fuzz: $target for ${seconds} s (seeds fuzz/corpus/$name, log $build/$target.log)"
  # The first corpus directory receives new inputs; the seed directory is only read.
  "$build/fuzz/$target" "$build/corpus/$name" "fuzz/corpus/$name" \
    -dict="fuzz/$name.dict" -max_total_time="$seconds" -max_len="${max_len[$target]}" \
    -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$target-" > "$build/$target.log" 2>&1 &
  pids[$target]=$!
done

failed=()
for target in "${targets[@]}"; do
  status=0
  wait "${pids[$target]}" || status=$?
  log="$build/$target.log"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)"
  coverage="$(grep -o 'cov: [0-9]*' "$log" | tail -n1 || true)"
  if [ "$status" -eq 0 ]; then
    echo "== fuzz: $target passed: ${runs:-?} inputs in ${seconds} s, ${coverage:-cov: ?} edges"
  else
    failed+=("$target")
    echo "== fuzz: $target FAILED (exit $status); the end of $log:" >&2
    tail -n 40 "$log" >&2
    reproducer="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)"
    if [ -n "$reproducer" ]; then
      echo "== fuzz: reproducer: $reproducer" >&2
      echo "== fuzz: rerun it with: $build/fuzz/$target $reproducer" >&2
    fi
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "== fuzz: no crash, leak, timeout or out-of-memory input found"
