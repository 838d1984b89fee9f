// What both tensor-core scoring kernels share: the split-FP16 operand layout's sizes and the
// inline-PTX primitives (MMA, exp2, cp.async). Device code, C++14; included by the two .cu
// files of the pass (matrix_free_tensor_core_kernels.cu, matrix_free_wide_kernels.cu).
#pragma once

#include <cstdint>

#include <cuda_fp16.h>

#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_plan.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define RBF_MATRIX_FREE_MMA 1
#endif

namespace rbf {
namespace gpu {

// K positions of the operands: 3 (d + 1) (the split terms of x~ and a~, see
// matrix_free_tensor_core_kernels.cu), in k-steps of 16 for the register kernel (d <= 31)
// and in chunks of kWideChunkHalves for the K-tiled kernel.
__host__ __device__ constexpr int tc_steps(int d) { return (3 * (d + 1) + 15) / 16; }
constexpr int kWideChunkHalves = 64;
__host__ __device__ constexpr int tc_wide_halves(int d) {
  return (3 * (d + 1) + kWideChunkHalves - 1) / kWideChunkHalves * kWideChunkHalves;
}
__host__ __device__ constexpr int tc_operand_halves(int d) {
  return d <= kMatrixFreeTensorMaxD ? 16 * tc_steps(d) : tc_wide_halves(d);
}
// After the halves of every row: one float per row (its scale 2^-e_i); after those of every
// candidate: two per candidate (2^-f_c and the constant term -L g_c ||c||^2).
constexpr int kRowExtraFloats = 1;
constexpr int kCandidateExtraFloats = 2;
// Candidates sharing one scale: 64, one warp's of either kernel, so the kernels apply it once
// per row and warp instead of once per Gaussian. A group whose entries span more than ~2^17
// loses some precision in its smallest ones (their lo parts become FP16 subnormals).
constexpr int kCandidateScaleGroup = 64;

#ifdef RBF_MATRIX_FREE_MMA
__device__ __forceinline__ void mma_fp16(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// d = A B with a zero accumulator (ptxas reads it from the zero register: no moves).
__device__ __forceinline__ void mma_fp16_zero(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                              std::uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%10,%10,%10};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
}
// Four 8 x 8 matrices of 16-bit values from shared memory: lane l gives the address of row
// l % 8 of matrix l / 8 (16 contiguous bytes); r[m] receives matrix m in the MMA fragment
// layout (lane 4 g + t holds row g, columns 2 t and 2 t + 1).
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s)
               : "memory");
}
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// Both kernels' epilogue for one MMA tile of exponents d (candidates g and g + 8, rows 2 t and
// 2 t + 1): scaled by the rows' and the group's scales plus the candidates' constant terms
// unless kUnitScale (where d already holds them), then phi = exp2(d) weighted by the rows' v
// into z (the two candidates' sums) and, for kSquare, phi^2 over real rows (masks m0, m1)
// into s.
template <bool kSquare, bool kUnitScale>
__device__ __forceinline__ void weigh_exponents(float (&d)[4], const float (&bias)[2], float scale0, float scale1,
                                                float2 w, float m0, float m1, float (&z)[2], float (&s)[2]) {
  if (!kUnitScale) {
    d[0] = fmaf(d[0], scale0, bias[0]);
    d[1] = fmaf(d[1], scale1, bias[0]);
    d[2] = fmaf(d[2], scale0, bias[1]);
    d[3] = fmaf(d[3], scale1, bias[1]);
  }
  const float p0 = ex2(d[0]), p1 = ex2(d[1]), p2 = ex2(d[2]), p3 = ex2(d[3]);
  z[0] = fmaf(p1, w.y, fmaf(p0, w.x, z[0]));
  z[1] = fmaf(p3, w.y, fmaf(p2, w.x, z[1]));
  if (kSquare) {
    s[0] = fmaf(p1 * p1, m1, fmaf(p0 * p0, m0, s[0]));
    s[1] = fmaf(p3 * p3, m1, fmaf(p2 * p2, m0, s[1]));
  }
}
// Sums z (and, for kSquare, s) over the four lanes of an MMA group (lanes 4 g .. 4 g + 3 hold
// the same candidates over different rows), in a fixed order.
template <bool kSquare>
__device__ __forceinline__ void sum_group_lanes(float& z, float& s) {
  z += __shfl_xor_sync(0xffffffffu, z, 1);
  z += __shfl_xor_sync(0xffffffffu, z, 2);
  if (kSquare) {
    s += __shfl_xor_sync(0xffffffffu, s, 1);
    s += __shfl_xor_sync(0xffffffffu, s, 2);
  }
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

}  // namespace gpu
}  // namespace rbf
