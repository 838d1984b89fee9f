// The matrix-free scoring pass on tensor cores (sm_80+, float): the cross term x . c in split
// FP16. Each operand is its FP16 rounding (hi) plus the FP16 rounding of the rest (lo), and
// hi.hi + hi.lo + lo.hi, accumulated in FP32, keeps float32 accuracy (the dropped lo.lo term
// is ~2^-22 of the product). The three terms are one inner product over K = 3 (d + 1) (the
// row's squared norm rides along), so d = 20 takes four m16n8k16 MMAs per 16 x 8 tile, where
// 3xTF32 on m16n8k8 takes nine (2.8 ms at 1M x 4096, bound by the tensor pipe). Cheaper
// splits are too coarse: plain TF32 is off by ~1e-3 in z, a BF16 correction by ~3e-5. Each
// warp keeps 64 candidates' operands in registers for its whole row range and accumulates z in
// registers (no atomics); rows stream through shared memory with cp.async double buffering.
// When one power of two scales all rows, and its inverse all candidates
// (MatrixFreePlan::unit_scale), the MMA's result is the exponent itself, with the candidate's
// constant term loaded as its accumulator, and each Gaussian costs the MMA, one exp2 and one
// FMA. The CUDA-core kernel (matrix_free_kernels.cu) covers the other cases.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include <cuda_fp16.h>

#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_plan.hpp"
#include "gpu/matrix_free_tensor_core_kernels.hpp"
#include "gpu/matrix_free_wide_kernels.hpp"
#include "gpu/reductions.cuh"
#include "gpu/tensor_core_operands.cuh"

namespace rbf {
namespace gpu {
namespace {

// ---------------------------------------------------------------- tensor-core operands
// Split-FP16 layout of the augmented vectors x~_i = [x_i, ||x_i||^2 2^-s] and
// a~_c = [2 L g_c c, -L g_c 2^s] (D = d + 1 entries, s = MatrixFreePlan::norm_shift) over K = 16 KS positions, KS = ceil(3 D / 16):
//   rows       [lo(x') | hi(x') | hi(x') | 0...]     x' = 2^e_i x~_i
//   candidates [hi(a') | lo(a') | hi(a') | 0...]     a' = 2^f_c a~_c
// so their inner product is lo.hi + hi.lo + hi.hi = x' . a' to ~2^-21 relative. The small
// terms come first: the MMA's k-steps then add the large ones last, to sums of like size.
// Each row also has 2^-e_i and each candidate {2^-f_c, -L g_c ||c||^2}, and
//   exponent = (x' . a') 2^-e_i 2^-f_c - L g_c ||c||^2.
// The power-of-two scales (exact) put each row's and each candidate group's largest entry in
// [2^13, 2^14): FP16 ends at 65504, and its subnormals would lose the lo parts of small
// entries. With a unit scale, rows take 2^e and candidates 2^-e for one e (e_i = -f_c), so
// the product needs no scaling; see matrix_free_choose_scale (matrix_free_plan.cpp) for why
// its precision holds.
// The halves come first, the per-row or per-candidate floats after all of them.

constexpr int kMmaTiles = 4;  // m16 tiles of candidates per warp of the MMA kernel
static_assert(kCandidateScaleGroup == kMmaTiles * 16 && kCandidateScaleGroup % 32 == 0 && kBlock % kCandidateScaleGroup == 0 &&
                  kMatrixFreeCandidates % kBlock == 0,
              "scale groups are whole warps of the operand kernel");
__host__ __device__ constexpr int tc_row_halves(int ks) { return ks * 16; }
__host__ __device__ constexpr int tc_candidate_halves(int ks) { return ks * 16; }
// With an even number of k-steps, a lane's halves of steps 2j and 2j+1 lie side by side (one
// 16-byte load per row and pair of steps, half the shared-memory loads); with an odd one, a
// step's are 8 bytes apart from the next lane's. Both operands use the same positions: k is
// a sum index.
__host__ __device__ constexpr bool tc_paired(int ks) { return ks % 2 == 0; }
__host__ __device__ constexpr int tc_fragment_offset(int ks, int s, int t) {
  return tc_paired(ks) ? 32 * (s / 2) + 8 * t + 4 * (s % 2) : 16 * s + 4 * t;
}
// Row stride in shared memory: an odd multiple of 64 bytes keeps the 16-byte loads of a
// quarter warp (2 rows x 4 lanes), and an odd multiple of 32 bytes the 8-byte loads of a
// half warp (4 rows x 4 lanes), free of bank conflicts.
__host__ __device__ constexpr int tc_staged_row_halves(int ks) {
  return tc_paired(ks) ? ((ks * 16 / 32) % 2 == 1 ? ks * 16 : ks * 16 + 32) : ks * 16;
}

// The exponent e with 2^e max_abs in [2^13, 2^14), kept where 2^e is a normal float.
__device__ int fp16_scale_exponent(double max_abs) {
  if (!(max_abs > 0.0)) return 0;
  int e = 0;
  (void)frexp(max_abs, &e);
  return min(100, max(-100, 14 - e));
}

// Writes 2^e v_f (v_f = value(f), f < n) split into FP16 hi and lo parts, in three segments
// of n (lo first for rows, hi first for candidates, see above), then zeros up to `halves`.
// value(f) is read once per entry, so any d fits without a local copy of the vector.
template <typename Value>
__device__ void write_split(Value value, int n, int e, bool lo_first, int halves, __half* out) {
  for (int f = 0; f < n; ++f) {
    const float x = static_cast<float>(ldexp(value(f), e));
    const __half hi = __float2half_rn(x);
    const __half lo = __float2half_rn(x - __half2float(hi));
    out[f] = lo_first ? lo : hi;
    out[n + f] = lo_first ? hi : lo;
    out[2 * n + f] = hi;
  }
  const __half zero = __float2half_rn(0.0f);
  for (int f = 3 * n; f < halves; ++f) out[f] = zero;
}

// unit_scale: every row takes 2^unit_exponent instead of its own scale.
__global__ void tc_rows_kernel(const float* __restrict__ xt, std::size_t ldx, int rows, int padded_rows, int d,
                               int norm_shift, bool unit_scale, int unit_exponent, float* __restrict__ x_aug) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= padded_rows) return;
  // Padding rows are 0.
  auto feature = [&](int f) { return i < rows ? static_cast<double>(xt[static_cast<std::size_t>(f) * ldx + i]) : 0.0; };
  double max_abs = 0.0, norm2 = 0.0;
  for (int f = 0; f < d; ++f) {
    const double x = feature(f);
    norm2 += x * x;
    max_abs = fmax(max_abs, fabs(x));
  }
  norm2 = ldexp(norm2, -norm_shift);
  const int e = unit_scale ? unit_exponent : fp16_scale_exponent(fmax(max_abs, norm2));
  const int halves = tc_operand_halves(d);
  write_split([&](int f) { return f < d ? feature(f) : norm2; }, d + 1, e, true, halves,
              reinterpret_cast<__half*>(x_aug) + static_cast<std::size_t>(i) * halves);
  x_aug[static_cast<std::size_t>(padded_rows) * (halves / 2) + i] = i < rows ? static_cast<float>(ldexp(1.0, -e)) : 0.0f;
}

// unit_scale: every candidate takes 2^-unit_exponent instead of its group's scale.
__global__ void tc_candidates_kernel(const float* __restrict__ centers, const float* __restrict__ gamma, int count,
                                     int padded_count, int d, int norm_shift, bool unit_scale, int unit_exponent,
                                     float* __restrict__ c_aug) {
  __shared__ double warp_max[kBlock / 32];
  const int c = blockIdx.x * blockDim.x + threadIdx.x;  // padded_count is a multiple of kBlock
  const bool live = c < count;                          // padding: never written out, zeros do
  const double gain = live ? kLog2e * static_cast<double>(gamma[c]) : 0.0;
  // The entries 2 L g_c c_f, then -L g_c 2^s.
  auto center = [&](int f) { return live ? static_cast<double>(centers[static_cast<std::size_t>(c) * d + f]) : 0.0; };
  double norm2 = 0.0, max_abs = ldexp(fabs(gain), norm_shift);
  for (int f = 0; f < d; ++f) {
    const double x = center(f);
    norm2 += x * x;
    max_abs = fmax(max_abs, fabs(2.0 * gain * x));
  }
  // The group's largest entry sets its scale.
  for (int offset = 16; offset > 0; offset >>= 1) max_abs = fmax(max_abs, __shfl_xor_sync(0xffffffffu, max_abs, offset));
  if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x / 32] = max_abs;
  __syncthreads();
  const int first_warp = threadIdx.x / kCandidateScaleGroup * (kCandidateScaleGroup / 32);
  for (int w = 0; w < kCandidateScaleGroup / 32; ++w) max_abs = fmax(max_abs, warp_max[first_warp + w]);
  const int e = unit_scale ? -unit_exponent : fp16_scale_exponent(max_abs);

  const int halves = tc_operand_halves(d);
  write_split([&](int f) { return f < d ? 2.0 * gain * center(f) : ldexp(-gain, norm_shift); }, d + 1, e, false,
              halves, reinterpret_cast<__half*>(c_aug) + static_cast<std::size_t>(c) * halves);
  float2* extra = reinterpret_cast<float2*>(c_aug + static_cast<std::size_t>(padded_count) * (halves / 2)) + c;
  *extra = make_float2(static_cast<float>(ldexp(1.0, -e)), static_cast<float>(-gain * norm2));
}

// ---------------------------------------------------------------- tensor cores

constexpr int kMmaWarps = 4;
constexpr int kMmaThreads = kMmaWarps * 32;
constexpr int kMmaMaxSteps = tc_steps(kMatrixFreeTensorMaxD);
static_assert(kMmaWarps * kMmaTiles * 16 == kMatrixFreeCandidates, "one block covers its candidates");

// Blocks per multiprocessor the compiler fits registers for: four (at most 128 registers) only
// where the fourth block pays for the registers it takes, the unit-scale scoring kernel up to
// four k-steps (1.59-1.61 against 1.65-1.67 ms at 1M x 4096 x 20 on an H100); the kernel with
// scales per row is slower held to 128 (1.80 against 1.68 ms).
__host__ __device__ constexpr int mma_min_blocks(int ks, bool square, bool unit_scale) {
  return unit_scale && !square && ks <= 4 ? 4 : 2;
}


#ifdef RBF_MATRIX_FREE_MMA
// The warp's 64 candidates for the whole pass: their MMA operands (A fragments, see below) into
// a and the exponent's constant terms into c_bias. Returns their scale group's 2^-f (1 with a
// unit scale).
template <int KS, bool kUnitScale>
__device__ __forceinline__ float load_warp_candidates(const MatrixFreePass<float>& p, int cand0,
                                                      std::size_t padded_count, std::uint32_t (&a)[kMmaTiles][KS][4],
                                                      float (&c_bias)[kMmaTiles][2]) {
  constexpr int kCandidateHalves = tc_candidate_halves(KS);
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const __half* c_halves = reinterpret_cast<const __half*>(p.c_aug);
  const float2* c_extra = reinterpret_cast<const float2*>(p.c_aug + padded_count * (kCandidateHalves / 2));
#pragma unroll
  for (int mt = 0; mt < kMmaTiles; ++mt) {
#pragma unroll
    for (int s = 0; s < KS; ++s) {
      const __half* lo_ptr =
          c_halves + static_cast<std::size_t>(cand0 + mt * 16 + g) * kCandidateHalves + tc_fragment_offset(KS, s, t);
      const uint2 lo = *reinterpret_cast<const uint2*>(lo_ptr);
      const uint2 hi = *reinterpret_cast<const uint2*>(lo_ptr + 8 * kCandidateHalves);
      a[mt][s][0] = lo.x;
      a[mt][s][1] = hi.x;
      a[mt][s][2] = lo.y;
      a[mt][s][3] = hi.y;
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) c_bias[mt][h] = c_extra[cand0 + mt * 16 + g + 8 * h].y;
  }
  return kUnitScale ? 1.0f : c_extra[cand0].x;  // the warp's candidates are one scale group
}

// One group of 8 rows against the warp's 64 candidates: the exponents (MMAs over the KS
// k-steps, scaled unless kUnitScale), their exp2, and the sums phi v (and phi^2 where the row
// masks m0, m1 are 1) added to zacc and sacc. scale0, scale1: rows 2t and 2t + 1's product
// scales; w: their v.
template <int KS, bool kSquare, bool kUnitScale>
__device__ __forceinline__ void score_row_group(const std::uint32_t (&a)[kMmaTiles][KS][4],
                                                const std::uint32_t (&b)[KS][2], const float (&c_bias)[kMmaTiles][2],
                                                float scale0, float scale1, float2 w, float m0, float m1,
                                                float (&zacc)[kMmaTiles][2], float (&sacc)[kMmaTiles][2]) {
#pragma unroll
  for (int mt = 0; mt < kMmaTiles; ++mt) {
    float d[4];
    if (kUnitScale) {  // the accumulator starts at the candidates' constant terms
      d[0] = d[1] = c_bias[mt][0];
      d[2] = d[3] = c_bias[mt][1];
    } else {
      d[0] = d[1] = d[2] = d[3] = 0.0f;
    }
#pragma unroll
    for (int s = 0; s < KS; ++s) mma_fp16(d, a[mt][s], b[s][0], b[s][1]);
    weigh_exponents<kSquare, kUnitScale>(d, c_bias[mt], scale0, scale1, w, m0, m1, zacc[mt], sacc[mt]);
  }
}

// The warp's sums into the pass's outputs: the four lanes of a group hold the same candidates
// over different rows.
template <bool kSquare>
__device__ __forceinline__ void write_warp_sums(const MatrixFreePass<float>& p, float (&zacc)[kMmaTiles][2],
                                                float (&sacc)[kMmaTiles][2], int cand0) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < kMmaTiles; ++mt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float z = zacc[mt][h], q = sacc[mt][h];
      sum_group_lanes<kSquare>(z, q);
      const int c = cand0 + mt * 16 + g + 8 * h;
      if (t == 0 && c < p.count) {
        p.out[static_cast<std::size_t>(blockIdx.y) * p.count + c] = z;
        if (kSquare) p.out_square[static_cast<std::size_t>(blockIdx.y) * p.count + c] = q;
      }
    }
  }
}
#endif

// Fragment layouts (PTX ISA, mma.m16n8k16 .f16), lane = 4 g + t. The k index is a sum
// index, so any assignment of K positions to k works as long as A and B agree: in k-step s,
// lane t owns positions o + {0, 1} (k = 2t, 2t+1) and o + {2, 3} (k = 2t+8, 2t+9), with
// o = tc_fragment_offset(KS, s, t): 8 bytes per row or candidate, next to the next step's.
//   A (candidates): {(g, 2t..), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..)}   B (rows): {(2t.., g), (2t+8.., g)}
//   D: {(g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)}  (candidate, row)
// kUnitScale: the operands were built with MatrixFreePlan::unit_scale. Without it, each
// exponent is the product times its row's and candidate group's scales plus the candidate's
// constant term, one more FMA per Gaussian.
//
// Neither clamps the exponent at 0 (one instruction per Gaussian, 4% of the pass): it is 0
// only where x = c, and the rounding that can make it slightly positive there (phi = 1 +
// ~1e-6) is the rounding every other Gaussian has too.
template <int KS, bool kSquare, bool kUnitScale>
__global__ void __launch_bounds__(kMmaThreads, mma_min_blocks(KS, kSquare, kUnitScale))
    matrix_free_mma_kernel(MatrixFreePass<float> p) {
#ifdef RBF_MATRIX_FREE_MMA
  constexpr int kRowHalves = tc_row_halves(KS);
  constexpr int kStagedHalves = tc_staged_row_halves(KS);
  __shared__ __align__(16) __half xs[2][kMatrixFreeRows * kStagedHalves];
  __shared__ __align__(16) float row_extra[2][kMatrixFreeRows];
  __shared__ __align__(16) float ws[2][kMatrixFreeRows];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int cand0 = blockIdx.x * kMatrixFreeCandidates + warp * (kMmaTiles * 16);
  const std::size_t padded_count = static_cast<std::size_t>(gridDim.x) * kMatrixFreeCandidates;

  // The warp's 64 candidates for the whole kernel: MMA operands and the exponent's constants.
  std::uint32_t a[kMmaTiles][KS][4];
  float c_bias[kMmaTiles][2];
  const float c_scale = load_warp_candidates<KS, kUnitScale>(p, cand0, padded_count, a, c_bias);

  const __half* x_halves = reinterpret_cast<const __half*>(p.x_aug);
  const float* x_extra = p.x_aug + static_cast<std::size_t>(p.padded_rows) * (kRowHalves / 2);
  const int r_begin = blockIdx.y * p.rows_per_split;
  const int r_end = min(p.padded_rows, r_begin + p.rows_per_split);
  const int tiles = max(0, r_end - r_begin) / kMatrixFreeRows;
  auto stage = [&](int buf, int row0) {
    const __half* src = x_halves + static_cast<std::size_t>(row0) * kRowHalves;
    constexpr int kRowChunks = kRowHalves / 8;  // 16-byte chunks
    for (int e = threadIdx.x; e < kMatrixFreeRows * kRowChunks; e += kMmaThreads)
      cp_async16(&xs[buf][e / kRowChunks * kStagedHalves + e % kRowChunks * 8], src + e * 8);
    if (!kUnitScale && threadIdx.x < kMatrixFreeRows / 4)
      cp_async16(&row_extra[buf][4 * threadIdx.x], x_extra + row0 + 4 * threadIdx.x);
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
    // Not unrolled: a second row group in flight costs more registers than the latency it hides
    // (1.89 against 1.80 ms at 1M x 4096 x 20 on an H100), and fewer registers let more blocks
    // share a multiprocessor. Pointers are stepped per row group, not indices recomputed: each
    // instruction taken out of this loop makes the pass faster.
    const __half* xr = &xs[buf][g * kStagedHalves + tc_fragment_offset(KS, 0, t)];
    const float* wr = &ws[buf][2 * t];
    const float* rr = &row_extra[buf][2 * t];
#pragma unroll 1
    for (int nt = 0; nt < kMatrixFreeRows / 8; ++nt, xr += 8 * kStagedHalves, wr += 8, rr += 8) {
      std::uint32_t b[KS][2];
      if (tc_paired(KS)) {
        // s + 1 < KS here; the guard keeps odd KS's copy of this branch, never run, in bounds.
#pragma unroll
        for (int s = 0; s < KS; s += 2) {
          const uint4 x = *reinterpret_cast<const uint4*>(xr + 16 * s);
          b[s][0] = x.x;
          b[s][1] = x.y;
          b[s + 1 < KS ? s + 1 : s][0] = x.z;
          b[s + 1 < KS ? s + 1 : s][1] = x.w;
        }
      } else {
#pragma unroll
        for (int s = 0; s < KS; ++s) {
          const uint2 x = *reinterpret_cast<const uint2*>(xr + 16 * s);
          b[s][0] = x.x;
          b[s][1] = x.y;
        }
      }
      const float2 w = *reinterpret_cast<const float2*>(wr);
      // The scales of rows 2t and 2t+1's products.
      const float2 r = kUnitScale ? make_float2(1.0f, 1.0f) : *reinterpret_cast<const float2*>(rr);
      float m0 = 1.0f, m1 = 1.0f;
      if (kSquare) {
        const int row = row_base + nt * 8 + 2 * t;
        m0 = row < p.rows ? 1.0f : 0.0f;
        m1 = row + 1 < p.rows ? 1.0f : 0.0f;
        if (p.square_weight != nullptr) {  // weighted rows (0 in padding)
          m0 = __ldg(p.square_weight + row);
          m1 = __ldg(p.square_weight + row + 1);
        }
      }
      score_row_group<KS, kSquare, kUnitScale>(a, b, c_bias, r.x * c_scale, r.y * c_scale, w, m0, m1, zacc, sacc);
    }
    __syncthreads();  // the next stage overwrites the buffer just read
  }

  write_warp_sums<kSquare>(p, zacc, sacc, cand0);
#else
  (void)p;  // never launched: plan_matrix_free checks the compiled architecture
#endif
}

template <int KS, bool kSquare, bool kUnitScale>
const void* mma_kernel() {
  return reinterpret_cast<const void*>(&matrix_free_mma_kernel<KS, kSquare, kUnitScale>);
}

template <bool kSquare, bool kUnitScale>
const void* mma_kernel_for(int ks) {
  static_assert(kMmaMaxSteps == 6, "one case per k-step count");
  switch (ks) {
    case 1:
      return mma_kernel<1, kSquare, kUnitScale>();
    case 2:
      return mma_kernel<2, kSquare, kUnitScale>();
    case 3:
      return mma_kernel<3, kSquare, kUnitScale>();
    case 4:
      return mma_kernel<4, kSquare, kUnitScale>();
    case 5:
      return mma_kernel<5, kSquare, kUnitScale>();
    default:
      return mma_kernel<6, kSquare, kUnitScale>();
  }
}

const void* mma_kernel_for(int ks, bool square, bool unit_scale) {
  if (unit_scale) return square ? mma_kernel_for<true, true>(ks) : mma_kernel_for<false, true>(ks);
  return square ? mma_kernel_for<true, false>(ks) : mma_kernel_for<false, false>(ks);
}

}  // namespace

bool matrix_free_tensor_cores_compiled_for(int device) {
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) return false;
  if (major < 8) return false;
  cudaFuncAttributes attributes;
  if (cudaFuncGetAttributes(&attributes, mma_kernel<4, false, true>()) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.ptxVersion >= 80 && attributes.binaryVersion >= 80;
}

MatrixFreeKernelShape matrix_free_tensor_core_shape(int d) {
  if (d > kMatrixFreeTensorMaxD) return matrix_free_wide_shape(d);
  MatrixFreeKernelShape shape;
  shape.kernel = mma_kernel_for<false, true>(tc_steps(d));
  shape.threads = kMmaThreads;
  shape.candidates = kMatrixFreeCandidates;
  shape.row_floats = tc_row_halves(tc_steps(d)) / 2 + kRowExtraFloats;
  shape.candidate_floats = tc_candidate_halves(tc_steps(d)) / 2 + kCandidateExtraFloats;
  return shape;
}

cudaError_t launch_tensor_core_rows(const float* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                    const MatrixFreePlan& plan, float* x_aug, cudaStream_t stream) {
  tc_rows_kernel<<<blocks_for(static_cast<std::size_t>(padded_rows), kBlock), kBlock, 0, stream>>>(
      xt, ldx, rows, padded_rows, d, plan.norm_shift, plan.unit_scale, plan.unit_exponent, x_aug);
  return cudaGetLastError();
}

cudaError_t launch_tensor_core_candidates(const float* centers, const float* gamma, int count, int padded_count,
                                          int d, const MatrixFreePlan& plan, float* c_aug, cudaStream_t stream) {
  tc_candidates_kernel<<<blocks_for(static_cast<std::size_t>(padded_count), kBlock), kBlock, 0, stream>>>(
      centers, gamma, count, padded_count, d, plan.norm_shift, plan.unit_scale, plan.unit_exponent, c_aug);
  return cudaGetLastError();
}

cudaError_t launch_tensor_core_pass(const MatrixFreePass<float>& pass, const MatrixFreePlan& plan,
                                    cudaStream_t stream) {
  if (pass.d > kMatrixFreeTensorMaxD) return launch_wide_tensor_core_pass(pass, plan, stream);
  if (pass.d < 1) return cudaErrorInvalidValue;
  const void* kernel = mma_kernel_for(tc_steps(pass.d), pass.out_square != nullptr, plan.unit_scale);
  const dim3 grid(blocks_for(static_cast<std::size_t>(pass.count), kMatrixFreeCandidates), pass.splits);
  void* args[] = {const_cast<MatrixFreePass<float>*>(&pass)};
  return cudaLaunchKernel(kernel, grid, dim3(kMmaThreads), args, 0, stream);
}

}  // namespace gpu
}  // namespace rbf
