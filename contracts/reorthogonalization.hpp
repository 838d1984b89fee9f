// When CGS projects a new column against Q a second time: the DGKS test both backends apply.
//
// Adding a node, u = phi - Q h1 is the first projection (h1 = Q^T phi, from the projection
// history when the scoring passes already computed it). Daniel, Gragg, Kaufman and Stewart
// (1976): project again (h2 = Q^T u; u -= Q h2) only when ||u|| < ||phi|| / sqrt(2).
//
// Why 1/sqrt(2): the first projection leaves an error of the size of its inputs' errors,
// about eps ||phi||, in the directions of Q. While ||u|| >= ||phi|| / sqrt(2), at most half
// of phi's squared norm cancelled, so q = u / ||u|| carries that error amplified by at most
// sqrt(2): q^T q_j stays near eps, and a second projection would change nothing that
// matters. Below, cancellation amplifies the error without bound (a phi almost in the span
// of Q leaves a u that is mostly error), and one more projection removes it: twice is
// enough (Kahan and Parlett).
//
// Why exactly DGKS's ratio, not a stricter one, although h1 may be less accurate than a
// fresh Q^T phi (the scoring pass sums in T over long columns, and a matrix-free pass may
// evaluate exp only to about 1e-6 relative): an error d in h1 leaves u = u_exact - Q d, so
// q^T q_j is about d_j / ||u|| <= (||d|| / ||phi||) / ratio. The ratio bounds how much h1's
// error is amplified, never the error itself; a stricter ratio could only bring that factor
// from sqrt(2) toward 1 while sending many more nodes through more reads of Q. With h1
// accurate to 1e-6 ||phi||, entries of Q^T Q - I stay near 1.5e-6, far inside the 1e-4 the
// tests ask. What the test must not do is trust h1 for the decision: ||phi|| is taken from
// the column and ||u|| from the u actually formed, where ||u||^2 = ||u_exact||^2 + ||d||^2
// (u_exact is orthogonal to Q) never under-reports, so no error in h1 can skip a needed
// second projection. n_c - s_c from the candidate statistics would be cheaper but shares
// h1's error and cancels catastrophically exactly where the decision matters.
#pragma once

namespace rbf::model {

inline constexpr double kReorthogonalizeRatio = 0.70710678118654752440;  // 1 / sqrt(2)

// True when CGS must project a second time, given ||u||^2 after the first projection and
// ||phi||^2, both summed in double. A NaN norm reorthogonalizes (and then fails the
// dependence test), never skips.
inline bool needs_reorthogonalization(double u2, double phi2) {
  return !(u2 >= kReorthogonalizeRatio * kReorthogonalizeRatio * phi2);
}

}  // namespace rbf::model
