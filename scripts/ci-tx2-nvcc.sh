#!/usr/bin/env bash
# Jetson TX2 proxy check of the CUDA sources: compiles every gpu/*.cu for sm_62 (compute
# capability 6.2) as C++14 against the CUDA 11.8 headers, assembles the device code with the
# CUDA 11.8 ptxas, and looks for CUDA APIs newer than JetPack 4.6's CUDA 10.2. CUDA 13 cannot
# target sm_62, so this is how CI keeps the kernels buildable on the TX2.
#
#   bash scripts/ci-tx2-nvcc.sh [DIR]      # DIR holds the .cu files (default gpu/)
#
# Where the tools come from: PyPI's nvidia-cuda-nvcc-cu11 11.8 wheel carries ptxas, libnvvm and
# libdevice but no nvcc driver and no front end (cicc), and no nvcc older than 13 is on PyPI.
# The front end here is therefore clang's CUDA mode, on the CUDA 11.8 headers of the
# nvidia-cuda-runtime-cu11 wheel (plus nvidia-cublas-cu11's when a source includes cuBLAS);
# the SASS for sm_62 comes from the CUDA 11.8 ptxas. Like nvcc it rejects device code that
# calls host functions, and with -Werror=c++17-extensions every C++17 construct.
#
# Skips (exit 0, with a message) when DIR has no .cu file or PyPI cannot be reached.
# Environment: RBF_TX2_PROXY_DIR (cache of the wheels and the objects; default
# ~/.cache/rbfnet/tx2-proxy, outside the clone, so that the next clone on this machine reuses
# the wheels instead of downloading them again).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
src_dir="${1:-gpu}"
cache="${RBF_TX2_PROXY_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rbfnet/tx2-proxy}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
cuda_version=11.8.89
cublas_version=11.11.3.6
start=$SECONDS

say() { echo "ci-tx2-nvcc: $*"; }
fail() { echo "ci-tx2-nvcc: FAILED: $*" >&2; exit 1; }

shopt -s nullglob
sources=("$src_dir"/*.cu)
shopt -u nullglob
if [ ${#sources[@]} -eq 0 ]; then
  say "SKIPPED: $src_dir/ has no .cu files yet; nothing to compile for the TX2 (sm_62)"
  exit 0
fi

# --- the compiler (clang's CUDA front end) ----------------------------------------------------
clang=""
for c in clang++ clang++-19 clang++-16 clang++-15 clang++-14; do
  if command -v "$c" > /dev/null 2>&1; then clang="$c"; break; fi
done
if [ -z "$clang" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  say "installing clang"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang; } \
    > /dev/null || fail "cannot install clang (the CUDA front end of this check)"
  clang=clang++
fi

command -v python3 > /dev/null 2>&1 || fail "python3 (with pip) is needed to fetch the CUDA 11.8 wheels"

# --- the CUDA 11.8 wheels, once ------------------------------------------------------------------
needs_cublas=0
if grep -qE '#include *[<"]cublas' "$src_dir"/*.cu "$src_dir"/*.cuh 2> /dev/null; then needs_cublas=1; fi
wheels=("nvidia-cuda-nvcc-cu11==$cuda_version" "nvidia-cuda-runtime-cu11==$cuda_version")
if [ "$needs_cublas" -eq 1 ]; then wheels+=("nvidia-cublas-cu11==$cublas_version"); fi
site="$cache/wheels"
stamp="$site/.installed"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${wheels[*]}" ]; then
  say "fetching ${wheels[*]} from PyPI"
  rm -rf "$site"
  mkdir -p "$cache"
  if ! python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$site" "${wheels[@]}" \
       > "$cache/pip.log" 2>&1; then
    # Unreachable (skip) or a real failure (fail)? Ask the package index itself.
    index="${PIP_INDEX_URL:-$(python3 -m pip config list 2> /dev/null | sed -n "s/^[a-z]*\.index-url='\(.*\)'$/\1/p" | head -n1)}"
    index="${index:-https://pypi.org/simple}"
    if ! python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=15)' \
         "${index%/}/nvidia-cuda-nvcc-cu11/" > /dev/null 2>&1; then
      tail -n 2 "$cache/pip.log" >&2
      say "SKIPPED: the package index ${index} is unreachable, so the CUDA 11.8 wheels cannot be fetched"
      exit 0
    fi
    cat "$cache/pip.log" >&2
    fail "pip could not install ${wheels[*]}"
  fi
  echo "${wheels[*]}" > "$stamp"
fi

# --- a CUDA installation clang recognizes, from the wheels -----------------------------------------
cuda="$cache/cuda-$cuda_version"
rm -rf "$cuda"
mkdir -p "$cuda/include" "$cuda/bin" "$cuda/nvvm" "$cuda/lib64"
cp -r "$site/nvidia/cuda_runtime/include/." "$site/nvidia/cuda_nvcc/include/." "$cuda/include/"
if [ "$needs_cublas" -eq 1 ]; then cp -r "$site/nvidia/cublas/include/." "$cuda/include/"; fi
rm -rf "$cuda/include/__init__.py" "$cuda/include/__pycache__"
ln -s "$site/nvidia/cuda_nvcc/bin/ptxas" "$cuda/bin/ptxas"
ln -s "$site/nvidia/cuda_nvcc/nvvm/libdevice" "$cuda/nvvm/libdevice"
echo "CUDA Version $cuda_version" > "$cuda/version.txt"
# clang's CUDA wrapper force-includes this cuRAND header; rbfnet uses no cuRAND, and the wheels
# have none, so an empty stand-in serves.
: > "$cuda/include/curand_mtgp32_kernel.h"

# Only these headers, in the order clang would use: /usr/local/include is left out because it
# may hold another CUDA's headers (CUDA 13 here), which would shadow the 11.8 ones.
resource="$("$clang" -print-resource-dir)"
system_dirs=()
while IFS= read -r d; do
  d="${d# }"
  [ "$d" = "/usr/local/include" ] && continue
  system_dirs+=(-isystem "$(realpath "$d")")
done < <(echo | "$clang" -x c++ -E -v - 2>&1 | sed -n '/<\.\.\.> search starts here/,/End of search list/p' | sed '1d;$d')
includes=(-nostdlibinc -isystem "$resource/include/cuda_wrappers" "${system_dirs[@]}" -isystem "$cuda/include")

# clang releases before 17 lack the cache-hint loads and stores (__ldcg, __stcs, ...) that the
# CUDA headers give nvcc; when this clang lacks them, plain loads and stores stand in (this is a
# compile check: the cache behaviour does not matter here).
shim_dir="$cache/shim"
mkdir -p "$shim_dir"
shim="$shim_dir/rbf_tx2_proxy_intrinsics.h"
probe="$shim_dir/probe.cu"
printf '__global__ void k(const float* p, float* q) { *q = __ldcg(p) + __ldcs(p); __stcs(q, 1.0f); }\n' > "$probe"
common=(-x cuda --cuda-path="$cuda" --cuda-gpu-arch=sm_62 -std=c++14 -Wno-unknown-cuda-version "${includes[@]}")
if "$clang" "${common[@]}" --cuda-device-only -fsyntax-only "$probe" > /dev/null 2>&1; then
  : > "$shim"
else
  {
    echo "// Stand-ins for the CUDA cache-hint loads and stores that this clang lacks."
    echo "#pragma once"
    for op in ldcg ldca ldcs ldlu ldcv; do
      echo "template <class T> __device__ inline T __$op(const T* p) { return *p; }"
    done
    for op in stcg stcs stwb stwt; do
      echo "template <class T> __device__ inline void __$op(T* p, T v) { *p = v; }"
    done
  } > "$shim"
fi

# --- compile ---------------------------------------------------------------------------------------
out="$cache/objects"
mkdir -p "$out"
flags=("${common[@]}" -O2 -I "$root" -include "$shim" -Wall
       -Werror=c++17-extensions -Werror=c++20-extensions -Wno-unused-command-line-argument)
failed=0
for src in "${sources[@]}"; do
  name="$(basename "$src" .cu)"
  # Device code: sm_62 SASS by the CUDA 11.8 ptxas (its register and memory report in the log).
  if ! "$clang" "${flags[@]}" --cuda-device-only -Xcuda-ptxas -v -c "$src" -o "$out/$name.sm_62.cubin" \
       > "$out/$name.device.log" 2>&1; then
    cat "$out/$name.device.log" >&2
    echo "ci-tx2-nvcc: $src does not compile for sm_62 (device code)" >&2
    failed=1
    continue
  fi
  # Host code of the .cu file (launches, templates) as C++14.
  if ! "$clang" "${flags[@]}" --cuda-host-only -c "$src" -o "$out/$name.host.o" > "$out/$name.host.log" 2>&1; then
    cat "$out/$name.host.log" >&2
    echo "ci-tx2-nvcc: $src does not compile as C++14 host code" >&2
    failed=1
    continue
  fi
  kernels="$(grep -c "Compiling entry function" "$out/$name.device.log" || true)"
  max_regs="$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$out/$name.device.log" | sort -n | tail -n1)"
  say "ok  $src: $kernels kernels for sm_62, at most ${max_regs:-0} registers per thread"
done

# --- CUDA APIs newer than 10.2 -------------------------------------------------------------------
# The 11.8 headers accept these, CUDA 10.2 does not have them: name -> the release that added it.
newer_apis=(
  'cudaMallocAsync|11.2' 'cudaFreeAsync|11.2' 'cudaMemPool|11.2' 'cudaMallocFromPoolAsync|11.2'
  'cudaDeviceGetDefaultMemPool|11.2' 'memoryPoolsSupported|11.2' 'cudaLaunchKernelEx|11.8'
  'cudaGraphInstantiateWithFlags|11.4' 'cudaStreamGetCaptureInfo_v2|11.3' 'cudaGetDriverEntryPoint|11.3'
  'cudaEventRecordWithFlags|11.1' 'cudaGraphUpload|11.1' 'cudaHostRegisterReadOnly|11.1'
  'cudaStreamSetAttribute|11.0' 'cudaStreamGetAttribute|11.0' 'cudaAccessPolicyWindow|11.0'
  'cudaCtxResetPersistingL2Cache|11.0' 'persistingL2CacheMaxSize|11.0' 'accessPolicyMaxWindowSize|11.0'
  'maxBlocksPerMultiProcessor|11.0' 'reservedSharedMemPerBlock|11.0' 'cublasSetWorkspace|11.0'
  'cublasComputeType_t|11.0' 'CUBLAS_COMPUTE_|11.0' 'CUDA_R_16BF|11.0' 'cuda_bf16\.h|11.0'
  '__nv_bfloat16|11.0' 'cuda_fp8\.h|11.8' '__nv_fp8|11.8' 'cuda_pipeline|11.0' 'cuda_awbarrier|11.0'
  'cuda/barrier|11.0' 'cuda/pipeline|11.1' 'cooperative_groups/reduce\.h|11.0' 'cg::reduce|11.0'
  'cooperative_groups/memcpy_async\.h|11.1' 'memcpy_async|11.1' '__reduce_(add|min|max|and|or|xor)_sync|11.0'
)
sources_all=()
for f in "$src_dir"/*.cu "$src_dir"/*.cuh "$src_dir"/*.hpp "$src_dir"/*.h "$src_dir"/*.cpp; do
  [ -e "$f" ] && sources_all+=("$f")
done
for entry in "${newer_apis[@]}"; do
  pattern="${entry%|*}" since="${entry#*|}"
  if hits="$(grep -HnE "\\b$pattern" "${sources_all[@]}" 2> /dev/null)"; then
    echo "$hits" | sed "s/^/ci-tx2-nvcc: CUDA $since API, not in CUDA 10.2: /" >&2
    failed=1
  fi
done

# Probably newer than 10.2 too, but not confirmed: warned about, not failed. The cache-hint
# loads and stores appear in CUDA 11's headers and programming guide, and CUDA 10.2's
# cuda_fp16.h has none of their __half overloads; inline PTX (ld.global.cg, ld.global.cs,
# st.global.cs) gives the same instructions on any CUDA and sm_62.
for f in "${sources_all[@]}"; do
  if hits="$(grep -HnE '\b__(ldcg|ldca|ldcs|ldlu|ldcv|stcg|stcs|stwb|stwt)\(' "$f")"; then
    echo "$hits" | sed 's/^/ci-tx2-nvcc: WARNING: cache-hint intrinsic, probably not in CUDA 10.2: /' >&2
  fi
done

[ "$failed" -eq 0 ] || fail "the CUDA sources in $src_dir/ would not build on a Jetson TX2 (CUDA 10.2, sm_62)"
say "${#sources[@]} .cu files compile for sm_62 (C++14, CUDA 11.8 headers and ptxas); no CUDA API newer than 10.2; $((SECONDS - start)) s"
