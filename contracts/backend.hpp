// The compute-backend interface: every batch-level operation the incremental trainer needs.
//
// The trainer (model/growth_run.hpp) keeps only small host state (R, Q^T Y, the chosen nodes);
// a backend owns the large state: the data X, Y, the candidate matrix Phi_C (stored or
// evaluated tile by tile), the orthonormal basis Q, the residual E and the per-candidate
// statistics g_c, n_c, s_c. Every call that returns values to the host has completed when it
// returns, so host-side timing of a call is honest on asynchronous devices too.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "contracts/backend_options.hpp"
#include "contracts/candidate_storage.hpp"
#include "contracts/row_shards.hpp"

namespace rbf::model {

struct Selection {
  bool found = false;      // false when no admissible candidate is left
  std::size_t index = 0;   // candidate index
  double score = 0.0;      // err_c (ols) or squared residual norm (max_residual)
};

// The large trainer state, in host memory, for moving a model between backends (the
// automatic switch and the GPU fault fallback). Matrices are column-major.
template <typename T>
struct BackendState {
  std::size_t basis = 0;             // columns of Q, bias included
  std::vector<T> q;                  // n x basis
  std::vector<T> e;                  // residual, n x k
  std::vector<T> n_norm, s_proj;     // n_c, s_c per candidate
  std::vector<T> g;                  // count x k
  std::vector<unsigned char> used;   // per candidate
  std::size_t val_columns = 0;
  std::vector<T> phi_val;            // nv x val_columns
};

// What the validation rows' predictions are scored against, for a backend that scores them
// where they are (Backend::validation_sums). nv x k row-major unless said otherwise.
struct ValidationTargets {
  std::vector<double> target;        // the value each standardized prediction should have
  std::vector<double> error_weight;  // k: an output's squared scale, turning errors into target units
  std::vector<double> class_offset;  // added to the predictions before the argmax; empty: none
  std::vector<long long> classes;    // nv true classes (classification); empty for regression
  std::vector<double> row_weight;    // nv sample weights of mean 1 (weighted runs); empty: every row 1
};

// The sums a validation score is made of (model/training_data.hpp turns them into RMSE and
// accuracy).
struct ValidationSums {
  // Each row i counts row_weight_i times (once without row weights):
  double weighted_sse = 0;  // sum over rows i, outputs j of error_weight_j (pred_ij - target_ij)^2
  double correct = 0;       // rows whose first argmax_j (pred_ij + class_offset_ij) is their class
};

template <typename T>
class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual BackendKind kind() const = 0;
  // "cpu" or "gpu", for logs and messages.
  std::string name() const { return backend_name(kind()); }

  // Makes set-up (set_candidates and reset_to_bias) poll `stop` between blocks of candidates
  // and return early once it is set: one pass over thousands of outputs takes minutes, and
  // SIGINT must not wait for it. After an early return the candidate statistics are
  // incomplete and the backend may only be destroyed; reset_to_bias still writes `a`.
  // nullptr (the default) never stops; a caller that needs complete passes (a rebuild)
  // clears it first.
  virtual void set_setup_stop(const std::atomic<bool>* stop) { setup_stop_ = stop; }

  // Makes this backend one shard of a row-sharded model (contracts/row_shards.hpp): it
  // then holds only the rows it is given, `rows` passed to set_candidates count among all
  // training rows, and every sum over rows goes through `shards`. Called before
  // set_training_data. Without it (the default) the backend holds every row. A backend that
  // cannot be a shard throws std::logic_error.
  virtual void set_row_shards(std::shared_ptr<RowShards> shards) {
    if (shards) throw std::logic_error(name() + " backend cannot hold a row shard");
  }

  // Copies the standardized training data: x is n x d, y is n x k, both row-major.
  virtual void set_training_data(const T* x, std::size_t n, std::size_t d, const T* y,
                                 std::size_t k) = 0;
  // Weighted least squares: s holds sqrt(w_i) for each of set_training_data's rows (s > 0,
  // scaled so that sum w_i = all training rows), called after set_training_data and before
  // set_candidates. The backend then multiplies row i of every Gaussian column over the
  // training rows (Phi_C, add_node's phi, the matrix-free passes) and of the bias column by
  // s_i, so that OLS on the given y (already multiplied by s) minimizes sum_i w_i ||e_i||^2.
  // Validation columns stay unscaled. Without it every s_i is 1.
  virtual void set_row_scale(const T* s) {
    if (s) throw std::logic_error(name() + " backend cannot weight rows");
  }
  // Copies validation features (nv x d row-major); nv may be 0.
  virtual void set_validation_data(const T* x, std::size_t nv) = 0;
  // Defines the candidate pool: centers (count x d row-major), widths (count) and the
  // training row each center came from. Phi_C is stored when decide_candidate_storage
  // (contracts/candidate_storage.hpp) says so for `storage` and the backend's own memory and
  // costs, else evaluated tile by tile on every pass with identical results.
  virtual void set_candidates(const T* centers, const T* widths, const std::size_t* rows,
                              std::size_t count, const StorageRequest& storage) = 0;
  // The last set_candidates' decision: Phi_C held in memory or re-evaluated per pass, and why.
  virtual StorageDecision candidate_storage() const = 0;
  bool candidates_stored() const { return candidate_storage().store; }

  // A hint before growth: up to `nodes` nodes will be added. A backend may prepare for them
  // now, during set-up (the GPU's sizes its basis where memory allows and loads the kernels
  // growth uses), so the iterations do not pay for it; growth past `nodes` still works.
  virtual void reserve_nodes(std::size_t nodes) { (void)nodes; }
  // The memory plan of a growth to `nodes` nodes, asked after reserve_nodes: "" when what the
  // growth still has to allocate (the basis Q, which grows with rows x nodes, and what grows
  // beside it) fits the memory this backend has, else the end of a sentence saying what is
  // short and how many nodes would fit ("needs 78.1 GiB ... at most 1100 nodes fit").
  virtual std::string memory_shortfall(std::size_t nodes) const {
    (void)nodes;
    return "";
  }

  // How the basis Q is held when not in the training precision, and why ("half precision on
  // GPU 0: ..."); "" when it is (every CPU backend, and the GPU unless gpu/cuda_compact_basis.cpp
  // applies).
  virtual std::string basis_storage() const { return ""; }

  // Resets to the bias-only model: Q = [1/sqrt(n)], E = Y - mean(Y), and in one pass over
  // Phi_C: n_c = ||phi_c||^2, s_c = (q_0^T phi_c)^2, g_c = phi_c^T E. Clears used marks and
  // the validation columns.
  // Writes q_0^T Y (k values) to `a`.
  virtual void reset_to_bias(std::vector<double>& a) = 0;

  // Marks a candidate as unavailable for selection.
  virtual void mark_used(std::size_t c) = 0;

  // OLS selection: argmax over unused candidates of ||g_c||^2 / (n_c - s_c + lambda),
  // skipping candidates with n_c - s_c <= tol * n_c (linearly dependent on the model).
  virtual Selection select_ols(double lambda, double tol) = 0;
  // Cheap selection: the unused candidate whose center row has the largest ||E_row||^2
  // (the lowest index among ties).
  virtual Selection select_max_residual() = 0;

  // Adds candidate c: phi = phi_c, CGS2 against Q (h = Q^T phi; u = phi - Q h; a second
  // time only when ||u|| < ||phi|| / sqrt(2), see contracts/reorthogonalization.hpp),
  // q = u / ||u|| appended to Q, and c marked used. Writes the total h (t+1 values) and
  // returns ||u||. When ||u||^2 <= tol * ||phi||^2 the candidate is dependent (the same
  // test as n_c - s_c <= tol * n_c): Q is left unchanged, c is marked used and 0 is returned.
  virtual double add_node(std::size_t c, double tol, std::vector<double>& h) = 0;
  // As add_node for a node that is no candidate (refinement moves centers and widths):
  // phi = phi(X; center, width), center = d standardized values. No candidate is marked used.
  // A center and width equal to candidate c's give exactly add_node(c)'s column.
  virtual double add_node_at(const T* center, T width, double tol, std::vector<double>& h) = 0;

  // With the newest q: a = q^T E; E -= q a^T; and when `statistics` is true one pass
  // z = Phi_C^T q with s_c += z_c^2 and g_c -= z_c a. Writes a (k values) and returns
  // ||E||_F^2 after the update.
  virtual double update(bool statistics, std::vector<double>& a) = 0;

  // A growth iteration's two steps in one call: add_node(c, tol, h), then, when the node was
  // kept, update(statistics, a). Returns add_node's value. A backend may queue both without
  // waiting in between (the GPU's does); `times` gets each step's share of the call in ms.
  struct PhaseTimes {
    double add_ms = 0, update_ms = 0;
  };
  virtual double add_and_update(std::size_t c, double tol, std::vector<double>& h, bool statistics,
                                std::vector<double>& a, PhaseTimes& times) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const double norm = add_node(c, tol, h);
    const auto t1 = Clock::now();
    times.add_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    times.update_ms = 0;
    if (norm > 0) {
      update(statistics, a);
      times.update_ms = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
    }
    return norm;
  }

  // Appends phi(X_val; center_c, width_c) as a new validation column.
  virtual void add_validation_column(std::size_t c) = 0;
  // Appends phi(X_val; center, width) as a new validation column.
  virtual void add_validation_column_at(const T* center, T width) = 0;
  // Validation predictions [1, Phi_val] * W, W given row-major (columns+1) x k, where
  // `columns` is the number of validation columns to use (the first ones). out: nv x k.
  virtual void predict_validation(const double* w, std::size_t columns,
                                  std::vector<double>& out) = 0;

  // Gives the targets validation_sums scores against (rows as set_validation_data's). A
  // backend that ignores them (the default) scores nothing itself.
  virtual void set_validation_targets(const ValidationTargets& /*targets*/) {}
  // The sums of the validation score of predict_validation(w, columns)'s predictions, computed
  // where the predictions are, so that only two numbers travel: on a GPU, the nv x k
  // predictions and the host's passes over them cost more than the rest of an iteration's
  // bookkeeping. Returns false when this backend does not compute them (no targets given, or
  // not supported); the caller then scores predict_validation's output itself.
  virtual bool validation_sums(const double* /*w*/, std::size_t /*columns*/, ValidationSums& /*sums*/) {
    return false;
  }

  // Nodes in Q, bias excluded.
  virtual std::size_t nodes() const = 0;
  // add_node and add_node_at calls, since the backend was made, whose CGS projected phi a
  // second time (the DGKS test of contracts/reorthogonalization.hpp; the others read
  // Q once less). A statistic for tests and cost logs.
  virtual std::size_t reorthogonalizations() const = 0;
  // Bytes of memory (host or device) the backend holds now.
  virtual std::size_t memory_bytes() const = 0;

  // Copies the trainer state out (for migration to another backend).
  virtual void export_state(BackendState<T>& /*state*/) const {
    throw std::logic_error(name() + " backend cannot export its state");
  }
  // Replaces the trainer state; set_training_data, set_validation_data and set_candidates
  // with the same arguments as on the exporting backend must have been called first.
  virtual void import_state(const BackendState<T>& /*state*/) {
    throw std::logic_error(name() + " backend cannot import a state");
  }

 protected:
  // Whether set-up should return now (set_setup_stop).
  bool setup_stop_requested() const { return stop_requested(setup_stop_); }

 private:
  const std::atomic<bool>* setup_stop_ = nullptr;
};

}  // namespace rbf::model
