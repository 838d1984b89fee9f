#!/usr/bin/env bash
# Runs the GPU checks on a CUDA machine from a build directory made elsewhere (same paths):
# the parity suite, the whole ctest suite, compute-sanitizer memcheck of the GPU tests, the
# GPU benchmarks and the command line on the GPU. Results go to $OUT (default /tmp/rbf-out).
# Usage: bench/gpu_device_checks.sh [BUILD_DIR] [STEPS], STEPS a comma list of
# tests,ctest,memcheck,bench,cli,refine (default all).
set -u
build=${1:-build-gpu}
steps=${2:-tests,ctest,memcheck,bench,cli,refine}
out=${OUT:-/tmp/rbf-out}
mkdir -p "$out"
root=$(pwd)

# The build directory holds absolute paths of the machine it was configured on.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
if [ "$src" != "$root" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$root" "$src"; fi
cmake_used=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt")
if [ ! -x "$cmake_used" ] && command -v cmake >/dev/null; then ln -sf "$(command -v cmake)" "$cmake_used"; fi
ctest_bin=$(command -v ctest || echo ctest)

libs="$root/.device/lib"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -e "$d/libcublas.so.13" ] && libs="$libs:$d"
done
# NCCL (several GPUs, or the one-device NCCL test): the system's, or the one PyTorch ships.
nccl=$(ls /usr/lib/x86_64-linux-gnu/libnccl.so.2 /usr/local/cuda/lib64/libnccl.so.2 2>/dev/null | head -1)
[ -n "$nccl" ] || nccl=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib', 'libnccl.so.2'))" 2>/dev/null)
[ -n "$nccl" ] && [ -e "$nccl" ] && libs="$libs:$(dirname "$nccl")"
export LD_LIBRARY_PATH="$libs:${LD_LIBRARY_PATH:-}"

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/device.txt"
git -C "$root" rev-parse --short HEAD 2>/dev/null | tee -a "$out/device.txt"

has() { case ",$steps," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
status=0
if has tests; then
  echo "== parity suite"
  timeout 300 "$build/tests/rbfnet_backend_tests" > "$out/backend_tests.txt" 2>&1 || status=1
  tail -4 "$out/backend_tests.txt"
  echo "== unit tests"
  (cd "$build/tests" && timeout 300 ./rbfnet_unit_tests) > "$out/unit_tests.txt" 2>&1 || status=1
  tail -4 "$out/unit_tests.txt"
fi
if has ctest; then
  echo "== ctest"
  (cd "$build" && timeout 400 "$ctest_bin" -j16 --output-on-failure) > "$out/ctest.txt" 2>&1 || status=1
  grep -E "tests passed|tests failed|Skipped|Failed|\*\*\*" "$out/ctest.txt" | tail -20
fi
if has memcheck; then
  echo "== compute-sanitizer memcheck (GPU cases)"
  # Not the NCCL case: NCCL's start-up probes its own kernels with CUDA calls that fail by
  # design (cudaFuncGetAttributes on images for other architectures), which memcheck counts.
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$build/tests/rbfnet_backend_tests" -tc='gpu*' -tce='*through NCCL*' > "$out/memcheck.txt" 2>&1 || status=1
  tail -5 "$out/memcheck.txt"
fi
if has bench; then
  echo "== benchmarks"
  timeout 280 "$build/bench/gpu_bench" ${BENCH_ARGS:-all} 2>&1 | tee "$out/bench.txt"
fi
if has cli; then
  echo "== command line"
  "$build/app/rbfnet" info > "$out/cli.txt" 2>&1
  "$build/app/rbfnet" train --data data/diabetes.csv --target progression --backend gpu --nodes 40 \
    --out /tmp/diabetes.rbfn --log-iter "$out/diabetes_iterations.csv" >> "$out/cli.txt" 2>&1 || status=1
  "$build/app/rbfnet" evaluate --model /tmp/diabetes.rbfn --data data/diabetes.csv --target progression \
    >> "$out/cli.txt" 2>&1 || status=1
  sed -n '/CUDA devices/,$p' "$out/cli.txt"
fi
if has refine; then
  echo "== refinement: one epoch GPU vs CPU, and training with refinement on each backend"
  timeout 240 "$build/bench/gpu_bench" refine --cpu-threads "$(nproc)" --cpu-reps 2 2>&1 | tee "$out/refine_bench.txt"
  # The calibrated cost model, to compare its prediction of an epoch with the measured one.
  "$build/app/rbfnet" calibrate 2>&1 | tee "$out/calibrate.txt"
  for b in cpu gpu; do
    "$build/app/rbfnet" train --data data/diabetes.csv --target progression --backend $b --nodes 30 \
      --precision float64 --refine-every 10 --refine-at-end --refine-method lm --refine-epochs 10 --quiet \
      --out "/tmp/refine_$b.rbfn" > "$out/refine_train_$b.txt" 2>&1 || status=1
    "$build/app/rbfnet" predict --model "/tmp/refine_$b.rbfn" --data data/diabetes.csv \
      --out "$out/refine_predictions_$b.csv" >> "$out/refine_train_$b.txt" 2>&1 || status=1
    grep -E "refine|validation" "$out/refine_train_$b.txt" | cut -c1-240
  done
fi
exit $status
