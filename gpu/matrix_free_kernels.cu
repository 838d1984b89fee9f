// The matrix-free scoring pass: each Gaussian is computed from X and the candidate centers,
// multiplied by v and reduced in registers, so Phi_C is never written to memory.
//
// On sm_80+ in float, the exponents come from tensor cores as 3xTF32: x~ . c~ (see
// matrix_free_kernels.hpp) = big_a big_b + big_a small_b + small_a big_b, each operand split
// into its TF32 rounding and the rest, which keeps float32 accuracy (plain TF32 is off by
// ~1e-3 in z; a BF16 correction term, tried, by ~3e-5, since the candidate side's rounding
// error is the same for every row and does not average out). Each warp keeps 64 candidates'
// operands in registers for its whole row range and accumulates z in registers (no atomics);
// rows stream through shared memory with cp.async double buffering. Elsewhere (double, older
// GPUs, d > 30), a CUDA-core kernel does the same with FMAs.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "gpu/matrix_free_kernels.hpp"
#include "gpu/reductions.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define RBF_MATRIX_FREE_MMA 1
#endif

namespace rbf {
namespace gpu {
namespace {

constexpr double kLog2e = 1.4426950408889634;

// ---------------------------------------------------------------- operands

template <typename T>
__global__ void matrix_free_rows_kernel(const T* __restrict__ xt, std::size_t ldx, int rows,
                                        int padded_rows, int d, int stride, T* __restrict__ x_aug) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= padded_rows) return;
  T* out = x_aug + static_cast<std::size_t>(i) * stride;
  if (i >= rows) {
    for (int f = 0; f < stride; ++f) out[f] = T(0);
    return;
  }
  double norm2 = 0.0;
  for (int f = 0; f < d; ++f) {
    const T v = xt[static_cast<std::size_t>(f) * ldx + i];
    out[f] = v;
    norm2 += static_cast<double>(v) * static_cast<double>(v);
  }
  out[d] = T(1);
  out[d + 1] = static_cast<T>(norm2);
  for (int f = d + 2; f < stride; ++f) out[f] = T(0);
}

template <typename T>
__global__ void matrix_free_candidates_kernel(const T* __restrict__ centers, const T* __restrict__ gamma,
                                              int count, int padded_count, int d, int stride,
                                              T* __restrict__ c_aug) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= padded_count) return;
  T* out = c_aug + static_cast<std::size_t>(c) * stride;
  if (c >= count) {  // padding: never written out, any finite value does
    for (int f = 0; f < stride; ++f) out[f] = T(0);
    return;
  }
  const double scale = kLog2e * static_cast<double>(gamma[c]);
  double norm2 = 0.0;
  for (int f = 0; f < d; ++f) {
    const double v = static_cast<double>(centers[static_cast<std::size_t>(c) * d + f]);
    out[f] = static_cast<T>(2.0 * scale * v);
    norm2 += v * v;
  }
  out[d] = static_cast<T>(-scale * norm2);
  out[d + 1] = static_cast<T>(-scale);
  for (int f = d + 2; f < stride; ++f) out[f] = T(0);
}

template <typename T>
__global__ void sum_splits_kernel(const T* __restrict__ partial, int splits, int count, T* __restrict__ dest) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= count) return;
  T sum = T(0);
  for (int s = 0; s < splits; ++s) sum += partial[static_cast<std::size_t>(s) * count + c];
  dest[c] = sum;
}

// ---------------------------------------------------------------- CUDA cores

__device__ __forceinline__ float exp2_clamped(float v) { return exp2f(fminf(v, 0.0f)); }
__device__ __forceinline__ double exp2_clamped(double v) { return exp2(fmin(v, 0.0)); }

template <typename T>
struct SimtShape;
template <>
struct SimtShape<float> {
  static constexpr int candidates = 32;
};
template <>
struct SimtShape<double> {
  static constexpr int candidates = 16;
};
constexpr int kSimtDepth = 64;  // augmented features staged at a time (all of them up to d = 62)

// One block: SimtShape::candidates candidates x one row split; one row per thread per trip.
template <typename T, bool kSquare>
__global__ void __launch_bounds__(kBlock) matrix_free_simt_kernel(MatrixFreePass<T> p) {
  constexpr int kCands = SimtShape<T>::candidates;
  __shared__ T tile[kCands][kSimtDepth];
  const int c0 = blockIdx.x * kCands;
  const int r_begin = blockIdx.y * p.rows_per_split;
  const int r_end = min(p.padded_rows, r_begin + p.rows_per_split);
  const int depth_total = p.d + 2;
  const bool staged_once = depth_total <= kSimtDepth;

  T acc[kCands], sq[kCands];
#pragma unroll
  for (int j = 0; j < kCands; ++j) acc[j] = sq[j] = T(0);

  for (int r0 = r_begin; r0 < r_end; r0 += kBlock) {
    const int i = r0 + threadIdx.x;
    const bool live = i < r_end;
    const T* xrow = p.x_aug + static_cast<std::size_t>(live ? i : r_begin) * p.stride;
    T arg[kCands];
#pragma unroll
    for (int j = 0; j < kCands; ++j) arg[j] = T(0);
    for (int k0 = 0; k0 < depth_total; k0 += kSimtDepth) {
      const int depth = min(kSimtDepth, depth_total - k0);
      if (!staged_once || r0 == r_begin) {
        __syncthreads();
        for (int e = threadIdx.x; e < kCands * kSimtDepth; e += kBlock) {
          const int j = e / kSimtDepth, kk = e % kSimtDepth;
          tile[j][kk] = kk < depth ? p.c_aug[static_cast<std::size_t>(c0 + j) * p.stride + k0 + kk] : T(0);
        }
        __syncthreads();
      }
      for (int kk = 0; kk < depth; ++kk) {
        const T x = xrow[k0 + kk];
#pragma unroll
        for (int j = 0; j < kCands; ++j) arg[j] = fma(x, tile[j][kk], arg[j]);
      }
    }
    const T w = live ? p.v[i] : T(0);
    const T m = live && i < p.rows ? T(1) : T(0);
#pragma unroll
    for (int j = 0; j < kCands; ++j) {
      const T phi = exp2_clamped(arg[j]);
      acc[j] = fma(phi, w, acc[j]);
      if (kSquare) sq[j] = fma(phi * phi, m, sq[j]);
    }
  }

  __shared__ T sums[kWarps][kCands];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int pass = 0; pass < (kSquare ? 2 : 1); ++pass) {
    T* out = pass == 0 ? p.out : p.out_square;
#pragma unroll
    for (int j = 0; j < kCands; ++j) {
      T s = pass == 0 ? acc[j] : sq[j];
      for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
      if (lane == 0) sums[warp][j] = s;
    }
    __syncthreads();
    if (threadIdx.x < kCands && c0 + static_cast<int>(threadIdx.x) < p.count) {
      T s = T(0);
      for (int w = 0; w < kWarps; ++w) s += sums[w][threadIdx.x];
      out[static_cast<std::size_t>(blockIdx.y) * p.count + c0 + threadIdx.x] = s;
    }
    __syncthreads();
  }
}

// ---------------------------------------------------------------- tensor cores

constexpr int kMmaWarps = 4;
constexpr int kMmaThreads = kMmaWarps * 32;
constexpr int kMmaTiles = 4;  // m16 tiles of candidates per warp
static_assert(kMmaWarps * kMmaTiles * 16 == kMatrixFreeCandidates, "one block covers its candidates");

// Row stride of x~ and c~ for KS k-steps of 8: odd multiples of 8 floats keep the warp's
// 8-byte shared-memory loads (8 rows x 4 lanes) free of bank conflicts.
__host__ __device__ constexpr int mma_stride(int ks) { return ks % 2 == 1 ? ks * 8 : ks * 8 + 8; }

#ifdef RBF_MATRIX_FREE_MMA
__device__ __forceinline__ std::uint32_t to_tf32(float x) {
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ void mma_tf32(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async4(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
#endif

// Fragment layouts (PTX ISA, mma.m16n8k8 .tf32), lane = 4 g + t. The k index is a sum
// index, so any assignment of features to k works as long as A and B agree: in k-step s,
// lane t owns features f0 = 8s + 2t and f1 = f0 + 1 (one 8-byte load).
//   A (candidates): {(g, f0), (g+8, f0), (g, f1), (g+8, f1)}   B (rows): {(f0, g), (f1, g)}
//   D: {(g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)}  (candidate, row)
template <int KS, bool kSquare>
__global__ void __launch_bounds__(kMmaThreads, 2) matrix_free_mma_kernel(MatrixFreePass<float> p) {
#ifdef RBF_MATRIX_FREE_MMA
  constexpr int kStride = mma_stride(KS);
  __shared__ __align__(16) float xs[2][kMatrixFreeRows * kStride];
  __shared__ __align__(16) float ws[2][kMatrixFreeRows];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int cand0 = blockIdx.x * kMatrixFreeCandidates + warp * (kMmaTiles * 16);

  // The warp's 64 candidates, split into TF32 parts, for the whole kernel.
  std::uint32_t a_main[kMmaTiles][KS][4], a_small[kMmaTiles][KS][4];
#pragma unroll
  for (int mt = 0; mt < kMmaTiles; ++mt) {
#pragma unroll
    for (int s = 0; s < KS; ++s) {
      const float* lo_ptr = p.c_aug + static_cast<std::size_t>(cand0 + mt * 16 + g) * kStride + 8 * s + 2 * t;
      const float2 lo = *reinterpret_cast<const float2*>(lo_ptr);
      const float2 hi = *reinterpret_cast<const float2*>(lo_ptr + 8 * kStride);
      const std::uint32_t lb0 = to_tf32(lo.x), lb1 = to_tf32(lo.y), hb0 = to_tf32(hi.x), hb1 = to_tf32(hi.y);
      a_main[mt][s][0] = lb0;
      a_main[mt][s][1] = hb0;
      a_main[mt][s][2] = lb1;
      a_main[mt][s][3] = hb1;
      const float ls0 = lo.x - __uint_as_float(lb0), ls1 = lo.y - __uint_as_float(lb1);
      const float hs0 = hi.x - __uint_as_float(hb0), hs1 = hi.y - __uint_as_float(hb1);
      a_small[mt][s][0] = to_tf32(ls0);
      a_small[mt][s][1] = to_tf32(hs0);
      a_small[mt][s][2] = to_tf32(ls1);
      a_small[mt][s][3] = to_tf32(hs1);
    }
  }

  const int r_begin = blockIdx.y * p.rows_per_split;
  const int r_end = min(p.padded_rows, r_begin + p.rows_per_split);
  const int tiles = max(0, r_end - r_begin) / kMatrixFreeRows;
  auto stage = [&](int buf, int row0) {
    const float* src = p.x_aug + static_cast<std::size_t>(row0) * kStride;
    constexpr int kChunks = kMatrixFreeRows * kStride / 4;
    for (int e = threadIdx.x; e < kChunks; e += kMmaThreads) cp_async16(&xs[buf][e * 4], src + e * 4);
    if (threadIdx.x < kMatrixFreeRows) cp_async4(&ws[buf][threadIdx.x], p.v + row0 + threadIdx.x);
    cp_async_commit();
  };

  float zacc[kMmaTiles][2], sacc[kMmaTiles][2];
#pragma unroll
  for (int mt = 0; mt < kMmaTiles; ++mt) zacc[mt][0] = zacc[mt][1] = sacc[mt][0] = sacc[mt][1] = 0.0f;

  if (tiles > 0) stage(0, r_begin);
  for (int tile = 0; tile < tiles; ++tile) {
    const int buf = tile & 1;
    if (tile + 1 < tiles) {
      stage(buf ^ 1, r_begin + (tile + 1) * kMatrixFreeRows);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const int row_base = r_begin + tile * kMatrixFreeRows;
#pragma unroll 2
    for (int nt = 0; nt < kMatrixFreeRows / 8; ++nt) {
      const float* xr = &xs[buf][(nt * 8 + g) * kStride + 2 * t];
      std::uint32_t b_main[KS][2], b_small[KS][2];
#pragma unroll
      for (int s = 0; s < KS; ++s) {
        const float2 x = *reinterpret_cast<const float2*>(xr + 8 * s);
        const std::uint32_t bb0 = to_tf32(x.x), bb1 = to_tf32(x.y);
        b_main[s][0] = bb0;
        b_main[s][1] = bb1;
        const float s0 = x.x - __uint_as_float(bb0), s1 = x.y - __uint_as_float(bb1);
        b_small[s][0] = to_tf32(s0);
        b_small[s][1] = to_tf32(s1);
      }
      const float2 w = *reinterpret_cast<const float2*>(&ws[buf][nt * 8 + 2 * t]);
      float m0 = 1.0f, m1 = 1.0f;
      if (kSquare) {
        const int r = row_base + nt * 8 + 2 * t;
        m0 = r < p.rows ? 1.0f : 0.0f;
        m1 = r + 1 < p.rows ? 1.0f : 0.0f;
      }
#pragma unroll
      for (int mt = 0; mt < kMmaTiles; ++mt) {
        float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        // The small products first, so the large one is added last.
#pragma unroll
        for (int s = 0; s < KS; ++s) {
          mma_tf32(d, a_small[mt][s], b_main[s][0], b_main[s][1]);
          mma_tf32(d, a_main[mt][s], b_small[s][0], b_small[s][1]);
        }
#pragma unroll
        for (int s = 0; s < KS; ++s) mma_tf32(d, a_main[mt][s], b_main[s][0], b_main[s][1]);
        const float p0 = ex2(fminf(d[0], 0.0f)), p1 = ex2(fminf(d[1], 0.0f));
        const float p2 = ex2(fminf(d[2], 0.0f)), p3 = ex2(fminf(d[3], 0.0f));
        zacc[mt][0] = fmaf(p1, w.y, fmaf(p0, w.x, zacc[mt][0]));
        zacc[mt][1] = fmaf(p3, w.y, fmaf(p2, w.x, zacc[mt][1]));
        if (kSquare) {
          sacc[mt][0] = fmaf(p1 * p1, m1, fmaf(p0 * p0, m0, sacc[mt][0]));
          sacc[mt][1] = fmaf(p3 * p3, m1, fmaf(p2 * p2, m0, sacc[mt][1]));
        }
      }
    }
    __syncthreads();  // the next stage overwrites the buffer just read
  }

  // The four lanes of a group hold the same candidates over different rows.
#pragma unroll
  for (int mt = 0; mt < kMmaTiles; ++mt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float z = zacc[mt][h], q = sacc[mt][h];
      z += __shfl_xor_sync(0xffffffffu, z, 1);
      z += __shfl_xor_sync(0xffffffffu, z, 2);
      if (kSquare) {
        q += __shfl_xor_sync(0xffffffffu, q, 1);
        q += __shfl_xor_sync(0xffffffffu, q, 2);
      }
      const int c = cand0 + mt * 16 + g + 8 * h;
      if (t == 0 && c < p.count) {
        p.out[static_cast<std::size_t>(blockIdx.y) * p.count + c] = z;
        if (kSquare) p.out_square[static_cast<std::size_t>(blockIdx.y) * p.count + c] = q;
      }
    }
  }
#else
  (void)p;  // never launched: plan_matrix_free checks the compiled architecture
#endif
}

int blocks_for(std::size_t n, int per_block) { return static_cast<int>((n + per_block - 1) / per_block); }

template <int KS, bool kSquare>
const void* mma_kernel() {
  return reinterpret_cast<const void*>(&matrix_free_mma_kernel<KS, kSquare>);
}

template <bool kSquare>
const void* mma_kernel_for(int ks) {
  switch (ks) {
    case 1:
      return mma_kernel<1, kSquare>();
    case 2:
      return mma_kernel<2, kSquare>();
    case 3:
      return mma_kernel<3, kSquare>();
    default:
      return mma_kernel<4, kSquare>();
  }
}

int mma_steps(int d) { return (d + 2 + 7) / 8; }

cudaError_t launch_mma(const MatrixFreePass<float>& pass, cudaStream_t stream) {
  const int ks = mma_steps(pass.d);
  if (ks > 4 || pass.stride != mma_stride(ks)) return cudaErrorInvalidValue;
  const void* kernel = pass.out_square != nullptr ? mma_kernel_for<true>(ks) : mma_kernel_for<false>(ks);
  const dim3 grid(blocks_for(static_cast<std::size_t>(pass.count), kMatrixFreeCandidates), pass.splits);
  void* args[] = {const_cast<MatrixFreePass<float>*>(&pass)};
  return cudaLaunchKernel(kernel, grid, dim3(kMmaThreads), args, 0, stream);
}
cudaError_t launch_mma(const MatrixFreePass<double>&, cudaStream_t) {
  return cudaErrorInvalidValue;  // tensor_cores is only planned for float
}

// True when this binary holds tensor-core code for the device (built for sm_80 or later,
// and not JIT-compiled from older PTX, whose kernel body would be empty).
bool mma_compiled_for(int device) {
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) return false;
  if (major < 8) return false;
  cudaFuncAttributes attributes;
  if (cudaFuncGetAttributes(&attributes, mma_kernel<3, false>()) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.ptxVersion >= 80 && attributes.binaryVersion >= 80;
}

}  // namespace

int matrix_free_stride(int d) { return mma_stride(mma_steps(d)); }

template <typename T>
cudaError_t launch_matrix_free_rows(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                    int stride, T* x_aug, cudaStream_t stream) {
  if (padded_rows <= 0) return cudaSuccess;
  matrix_free_rows_kernel<T><<<blocks_for(static_cast<std::size_t>(padded_rows), kBlock), kBlock, 0, stream>>>(
      xt, ldx, rows, padded_rows, d, stride, x_aug);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_matrix_free_candidates(const T* centers, const T* gamma, int count,
                                          int padded_count, int d, int stride, T* c_aug,
                                          cudaStream_t stream) {
  if (padded_count <= 0) return cudaSuccess;
  matrix_free_candidates_kernel<T><<<blocks_for(static_cast<std::size_t>(padded_count), kBlock), kBlock, 0,
                                     stream>>>(centers, gamma, count, padded_count, d, stride, c_aug);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_sum_splits(const T* partial, int splits, int count, T* dest, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  sum_splits_kernel<T><<<blocks_for(static_cast<std::size_t>(count), kBlock), kBlock, 0, stream>>>(
      partial, splits, count, dest);
  return cudaGetLastError();
}

template <typename T>
MatrixFreePlan plan_matrix_free(int padded_rows, int count, int d, int device, bool tensor_cores_allowed) {
  MatrixFreePlan plan;
  plan.tensor_cores = tensor_cores_allowed && std::is_same<T, float>::value && d + 2 <= 32 && mma_compiled_for(device);
  int sms = 1;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) sms = 1;
  const int per_block = plan.tensor_cores ? kMatrixFreeCandidates : SimtShape<T>::candidates;
  const int candidate_blocks = std::max(1, blocks_for(static_cast<std::size_t>(std::max(count, 1)), per_block));
  int resident = 1;
  const void* kernel = plan.tensor_cores ? mma_kernel_for<false>(mma_steps(d))
                                         : reinterpret_cast<const void*>(&matrix_free_simt_kernel<T, false>);
  const int threads = plan.tensor_cores ? kMmaThreads : kBlock;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, threads, 0) != cudaSuccess || resident < 1) {
    (void)cudaGetLastError();
    resident = 1;
  }
  // About four waves of blocks, so the last wave's imbalance stays small, and whole
  // kMatrixFreeRows tiles per split.
  const int target = sms * resident * 4;
  const int tiles = std::max(1, padded_rows / kMatrixFreeRows);
  int splits = std::min(tiles, std::max(1, (target + candidate_blocks - 1) / candidate_blocks));
  const int tiles_per_split = (tiles + splits - 1) / splits;
  plan.splits = (tiles + tiles_per_split - 1) / tiles_per_split;
  plan.rows_per_split = tiles_per_split * kMatrixFreeRows;
  return plan;
}

template <typename T>
cudaError_t launch_matrix_free_pass(const MatrixFreePass<T>& pass, const MatrixFreePlan& plan,
                                    cudaStream_t stream) {
  if (pass.count <= 0) return cudaSuccess;
  if (!plan.tensor_cores) {
    const bool square = pass.out_square != nullptr;
    const dim3 grid(blocks_for(static_cast<std::size_t>(pass.count), SimtShape<T>::candidates), pass.splits);
    if (square)
      matrix_free_simt_kernel<T, true><<<grid, kBlock, 0, stream>>>(pass);
    else
      matrix_free_simt_kernel<T, false><<<grid, kBlock, 0, stream>>>(pass);
    return cudaGetLastError();
  }
  return launch_mma(pass, stream);
}

}  // namespace gpu
}  // namespace rbf

#define RBF_INSTANTIATE(T)                                                                           \
  template cudaError_t launch_matrix_free_rows<T>(const T*, std::size_t, int, int, int, int, T*,      \
                                                  cudaStream_t);                                     \
  template cudaError_t launch_matrix_free_candidates<T>(const T*, const T*, int, int, int, int, T*,   \
                                                        cudaStream_t);                               \
  template cudaError_t launch_sum_splits<T>(const T*, int, int, T*, cudaStream_t);                    \
  template MatrixFreePlan plan_matrix_free<T>(int, int, int, int, bool);                                 \
  template cudaError_t launch_matrix_free_pass<T>(const MatrixFreePass<T>&, const MatrixFreePlan&,    \
                                                  cudaStream_t);
namespace rbf {
namespace gpu {
RBF_INSTANTIATE(float)
RBF_INSTANTIATE(double)
}  // namespace gpu
}  // namespace rbf
#undef RBF_INSTANTIATE
