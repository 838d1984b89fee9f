// Launchers of the compact basis (compact_basis_kernels.cu): Q held in half precision, column j
// being scale[j] * qh[j * ld + i], so a GPU holds twice the rows x nodes it could in float.
// Plain pointers and sizes, C++14, so both nvcc and the host compiler include it. Each
// launcher returns cudaGetLastError() after its launches; callers wrap it in RBF_CUDA_CHECK.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace rbf {
namespace gpu {

// Rows one block of the projection covers, and the blocks of the per-column statistics.
constexpr int kCompactProjectRows = 4096;
constexpr int kCompactStatBlocks = 256;

// Blocks (and so partial sums per column) of a projection over padded_rows rows.
inline int compact_project_blocks(std::size_t padded_rows) {
  return static_cast<int>((padded_rows + kCompactProjectRows - 1) / kCompactProjectRows);
}

// h[j] = scale[j] * sum_i qh_ij v_i for j < cols. partial holds compact_project_blocks(padded_rows)
// x cols floats. padded_rows and ld are multiples of kRowPadding.
cudaError_t launch_compact_project(const unsigned short* qh, const float* scale, std::size_t ld, int cols,
                                   int padded_rows, const float* v, float* partial, float* h,
                                   cudaStream_t stream);

// out_i = v_i - sum_{j < cols} scale[j] h[j] qh_ij (out may be v).
cudaError_t launch_compact_subtract(const unsigned short* qh, const float* scale, std::size_t ld, int cols,
                                    int padded_rows, const float* h, const float* v, float* out,
                                    cudaStream_t stream);

// Per block b of kCompactStatBlocks: stats[2b] = the sum of v_i^2, stats[2b + 1] = max |v_i|.
cudaError_t launch_compact_stats(const float* v, int padded_rows, double* stats, cudaStream_t stream);

// CGS2's end, from phi's and u's statistics and the two projections h1, h2 (cols values): the
// norms and the dependence test into results (as the float basis's CGS), h1 + h2 at
// results[h_offset], *mark = used_mark (mark not null), and encode[0] = the factor taking u to
// its half-precision code, 0 when u is dependent.
cudaError_t launch_compact_cgs_finish(const double* phi_stats, const double* u_stats, const float* h1,
                                      const float* h2, int cols, double tol, unsigned char* mark,
                                      unsigned char used_mark, double* results, int h_offset, float* encode,
                                      cudaStream_t stream);

// encode[0] for a column stored as it is (the bias column, an imported one), from its stats.
cudaError_t launch_compact_prepare(const double* stats, float* encode, cudaStream_t stream);

// Stores u as the basis column qh_column (unless encode[0] is 0): the half-precision code of
// u * encode[0], scale_entry = 1 / the code's norm, and u replaced by the decoded column, unit
// norm, which is the basis vector every later step uses. sums: kCompactStatBlocks doubles.
cudaError_t launch_compact_store(float* u, int padded_rows, const float* encode, double* sums,
                                 unsigned short* qh_column, float* scale_entry, cudaStream_t stream);

// out = the decoded column: scale_entry[0] * qh_column.
cudaError_t launch_compact_decode(const unsigned short* qh_column, const float* scale_entry, int padded_rows,
                                  float* out, cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
