// The CUDA + cuBLAS implementation of model::Backend<T>: Phi_C, Q, E and the candidate
// statistics live on the device; each call ends with at most one small copy back.
// The host side by job: cuda_backend.cpp (data, candidates, buffers), cuda_scoring_pass.cpp
// (the passes and selections), cuda_orthogonalize.cpp (CGS2), cuda_validation.cpp and
// cuda_state_transfer.cpp, sharing cuda_backend_internal.hpp.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gpu/candidate_kernels.hpp"
#include "gpu/cuda_context.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/device_timing.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_plan.hpp"
#include "contracts/backend.hpp"
#include "contracts/backend_options.hpp"

namespace rbf::gpu {

template <typename T>
class CudaBackend final : public model::Backend<T> {
 public:
  CudaBackend(std::shared_ptr<Context> context, const model::GpuOptions& options);
  ~CudaBackend() override = default;

  model::BackendKind kind() const override { return model::BackendKind::gpu; }
  void set_training_data(const T* x, std::size_t n, std::size_t d, const T* y,
                         std::size_t k) override;
  void set_row_scale(const T* s) override;
  void set_validation_data(const T* x, std::size_t nv) override;
  void set_candidates(const T* centers, const T* widths, const std::size_t* rows,
                      std::size_t count, const model::StorageRequest& storage) override;
  model::StorageDecision candidate_storage() const override { return storage_; }
  void reserve_nodes(std::size_t nodes) override;
  std::string memory_shortfall(std::size_t nodes) const override;
  std::string basis_storage() const override;
  void reset_to_bias(std::vector<double>& a) override;
  void mark_used(std::size_t c) override;
  model::Selection select_ols(double lambda, double tol) override;
  model::Selection select_max_residual() override;
  double add_node(std::size_t c, double tol, std::vector<double>& h) override;
  double add_node_at(const T* center, T width, double tol, std::vector<double>& h) override;
  double update(bool statistics, std::vector<double>& a) override;
  // Lazy CGS2 and the lazy update queued back to back, one wait (cuda_iteration.cpp).
  double add_and_update(std::size_t c, double tol, std::vector<double>& h, bool statistics, std::vector<double>& a,
                        typename model::Backend<T>::PhaseTimes& times) override;
  void add_validation_column(std::size_t c) override;
  void add_validation_column_at(const T* center, T width) override;
  void predict_validation(const double* w, std::size_t columns,
                          std::vector<double>& out) override;
  void set_validation_targets(const model::ValidationTargets& targets) override;
  bool validation_sums(const double* w, std::size_t columns, model::ValidationSums& sums) override;
  std::size_t nodes() const override { return nodes_; }
  std::size_t reorthogonalizations() const override { return reorthogonalizations_; }
  std::size_t memory_bytes() const override;
  void export_state(model::BackendState<T>& state) const override;
  void import_state(const model::BackendState<T>& state) override;

  // One shard of a row-sharded model (cuda_row_shards.cpp): this backend then holds only the
  // rows it is given, and its sums over rows go through the group.
  void set_row_shards(std::shared_ptr<model::RowShards> shards) override;

  const Context& context() const { return context_; }
  // Candidate columns per tile in matrix-free mode (all candidates when stored).
  std::size_t tile_columns() const { return tile_columns_; }
  // How the matrix-free pass runs (meaningful when candidates are not stored).
  const MatrixFreePlan& matrix_free_plan() const { return free_plan_; }

 private:
  // Calls fn(block, first, count) for consecutive column blocks of Phi_C: the stored matrix
  // in one block, or tiles evaluated into scratch memory (matrix-free). Defined in
  // cuda_backend_internal.hpp, so each file that calls it can instantiate it. With
  // `setup`, it waits for each tile and stops early once set-up is to stop (set_setup_stop);
  // it returns false then.
  template <typename Fn>
  bool for_each_tile(Fn&& fn, bool setup = false);
  void evaluate_columns(std::size_t first, std::size_t count, T* out) const;
  // Evaluates the whole stored Phi_C in slices, waiting for each, so that a stop during
  // set-up waits for one slice, not for every column.
  void evaluate_stored_columns();
  // Matrix-free mode: the fused pass's operands and plan (cuda_matrix_free_pass.cpp).
  void prepare_matrix_free();
  // Sets storage_ and stored_ by the contract's rule (contracts/candidate_storage.hpp), with
  // the GPU's budget and free memory, and one pass's cost measured both ways where Phi_C fits.
  void decide_storage(const model::StorageRequest& storage);
  // out[s * candidates + c] = split s's share of phi_c^T v (and of ||phi_c||^2 into
  // out_square when not null), computed without Phi_C; free_plan_.splits splits.
  void matrix_free_pass(const T* v, T* out, T* out_square);
  // Matrix-free reset: gq_, n_c, s_c and history column 0 from fused passes; false (nothing
  // done) when there are too many outputs for that to pay.
  bool matrix_free_reset();
  // The same statistics from Phi_C's columns, stored or evaluated tile by tile.
  void reset_from_columns(const T* q0);
  const T* candidate_column(std::size_t c);  // stored column or a freshly evaluated copy
  void ensure_basis_capacity(std::size_t columns);
  // Basis columns a growth to `nodes` nodes needs, and the device bytes those columns take
  // with what grows beside them (the projection history, the validation columns).
  std::size_t basis_columns_for(std::size_t nodes) const;
  // Bytes a basis of `columns` columns takes with what grows beside it, Q in float or compact.
  double growth_bytes(std::size_t columns, bool compact) const;
  double growth_bytes(std::size_t columns) const { return growth_bytes(columns, compact_); }
  // The compact basis (cuda_compact_basis.cpp). Column j of Q as the float steps read it: in
  // Q, or in compact mode one of the two float columns kept (the newest and CGS2's working one).
  T* basis_column(std::size_t j) const {
    return q_.get() + (compact_ ? j % 2 : j) * npad_;
  }
  // Whether this run may hold Q compactly (float32, one GPU, backend.gpu_basis not full), and
  // why reserve_nodes should for a basis of `columns` columns ("" when it should not).
  bool compact_allowed() const;
  std::string compact_reason(std::size_t columns) const;
  // Moves Q's columns so far into the compact form and keeps it from then on.
  void enter_compact_basis(const std::string& reason);
  // Grows the compact basis to `capacity` columns, keeping its columns so far.
  void grow_compact_basis(std::size_t capacity);
  // Encodes basis_column(j) as compact column j and replaces it by the decoded vector.
  void store_basis_column(std::size_t j);
  // CGS2 against the compact basis, both projections always (add_node's contract otherwise).
  double compact_orthogonalize(const T* phi, const T* h1, unsigned char* mark, double tol, std::vector<double>& h);
  // out[j + c * ldo] = q_j^T block_c for the basis columns j and count columns of block.
  void basis_transpose_times(const T* block, int count, T* out, int ldo) const;
  // Copies basis column j, decoded, to the host (n_ values).
  void copy_basis_column(std::size_t j, T* host) const;
  void ensure_validation_capacity(std::size_t columns);
  // Lazy CGS2 (cuda_orthogonalize.cpp) applies: one device, few enough outputs to fold a = q^T E
  // into CGS's pass.
  bool lazy_cgs() const;
  // Queues lazy CGS2's two launches for phi (h1 = Q^T phi on the device, mark set to used).
  void queue_lazy_cgs(const T* phi, const T* h1, unsigned char* mark, double tol);
  // After CGS's results came back: h, the new node (unless dependent) and ||u|| or 0.
  double take_cgs_results(std::vector<double>& h);
  // Queues the scoring pass of q and the statistics update with the next selection; `column`
  // is the history column it writes (and, for lazy CGS2, how to correct z).
  void queue_statistics(const T* q, const History<T>& column);
  // update()'s ||E||^2 after a lazy update, from the last exact one and a.
  double lazy_residual_norm2(const std::vector<double>& a);
  // Finishes the column lazy CGS2 left pending (and E's update by it), for the callers that
  // read Q or E as they are. Const: the basis it represents does not change.
  void settle_basis() const;
  // CGS of the column phi against Q, twice when DGKS asks, as add_node documents. h1 =
  // Q^T phi when known (the candidate's history row), else null and computed here; mark (not
  // null) is set to used.
  double orthogonalize(const T* phi, const T* h1, unsigned char* mark, double tol,
                       std::vector<double>& h);
  // Copies an off-pool node's center and gamma to node_, laid out as one candidate of
  // centers_ / gamma_, so launch_eval_columns evaluates it exactly as a candidate.
  void upload_node(const T* center, T width);
  // Grows the validation columns for one more and returns where it goes.
  T* next_validation_column();
  // Queues val_out_ = Phi_val[:, :columns] W (W's node rows, without the bias row), columns > 0.
  void queue_validation_predictions(const double* w, std::size_t columns);
  void queue_selection(const SelectRequest& request);
  // Readies an OLS request: candidates marked dependent under a larger tolerance come back.
  void prepare_request(SelectRequest& request);
  void revive_dependents();
  model::Selection read_selection() const;
  void copy_results_back(std::size_t count);
  CandidateStats stats() const;
  History<T> history(std::size_t column) const;
  ReduceScratch scratch() const;
  // Row sharding (cuda_row_shards.cpp). Each shard sums over its rows as an unsharded backend
  // does; these then make every shard continue with the totals over all rows. The fused steps
  // that take decisions from row sums on the device (CGS's DGKS and dependence tests, a = q^T E
  // folded into CGS, the speculative max-residual selection) run unfused when sharded.
  bool sharded() const { return shards_ != nullptr; }
  // Training rows over all shards (n_ when unsharded).
  std::size_t total_rows() const { return sharded() ? shards_->total_rows() : n_; }
  // Replaces count device values (T or double) by their sums over all shards.
  template <typename V>
  void sum_over_shards(V* values, std::size_t count);
  // After CGS's first pass: ||u||^2 and ||phi||^2 summed over the shards, the DGKS decision
  // taken from them into the results; returns the decision.
  bool shard_reorthogonalization(double ratio2);
  // After CGS's last pass: ||u||^2 summed, ||u|| and the dependence test into the results.
  void shard_dependence(double tol);
  // Per-candidate scratch for a shard's sums (z, n_c), made on first use.
  T* shard_sums();
  // The bias model's statistics from gq_ and the squared partial sums (splits of them).
  void finish_reset(const T* squares, int splits);
  // Max-residual selection from every shard's residual rows.
  model::Selection shard_select_max_residual();
  // Whether set-up is to stop early (set_setup_stop). Never for a shard: the others would
  // wait for its sums forever, so a sharded set-up runs to its end and the stop is seen after.
  bool setup_stopped() const { return !sharded() && this->setup_stop_requested(); }
  // Whether passes end by selecting on the device for the last request: not before any
  // request, nor a sharded max-residual one (each shard sees its own rows of E only).
  bool device_selects() const {
    return last_request_.mode != kSelectNone && !(sharded() && last_request_.mode == kSelectMaxResidual);
  }
  void require_training_data(const char* call) const;
  void require_candidates(const char* call) const;
  std::size_t budget_bytes() const;
  void release_candidates();
  void release_validation();

  model::GpuOptions options_;
  std::shared_ptr<Context> shared_context_;  // the run's one device context
  const Context& context_;
  Placement input_placement_;

  // Training data (feature-major, rows padded with zeros to npad_).
  std::size_t n_ = 0, npad_ = 0, d_ = 0, k_ = 0;
  Buffer<T> xt_, y_, e_;
  // Weighted rows (set_row_scale): s, s^2 for the matrix-free squares, and the matrix-free
  // pass's v times s (npad_ each, 0 in padding); all empty unweighted.
  Buffer<T> row_scale_, row_weight_, scaled_v_;
  const T* row_scale() const { return row_scale_.empty() ? nullptr : row_scale_.get(); }
  // Validation data and its Phi columns.
  std::size_t nv_ = 0, nvpad_ = 0, val_columns_ = 0, val_capacity_ = 0;
  Buffer<T> xvt_, phi_val_, weights_, val_out_;
  Buffer<T> val_out_host_;
  // What validation_sums scores against (model::ValidationTargets), and the bias row of W.
  Buffer<double> val_target_, val_weight_, val_offset_, val_bias_, val_row_weight_;
  Buffer<long long> val_classes_;
  // Candidates.
  std::size_t candidates_ = 0, tile_columns_ = 0;
  bool stored_ = false;  // storage_.store
  model::StorageDecision storage_;
  ScorePartition partition_{1, 1, 0, 2};
  Buffer<T> centers_, gamma_, phi_, tile_, column_, partial_, gq_;
  // Matrix-free mode: augmented rows and candidates (matrix_free_kernels.hpp), the squared
  // partial sums of the reset pass, and the launch plan.
  Buffer<T> rows_aug_, candidates_aug_, partial_square_;
  MatrixFreePlan free_plan_;
  double mean_row_norm2_ = 0.0;  // of the training rows: sets free_plan_.norm_shift
  MatrixFreeRange free_rows_range_;        // of the training rows, and
  MatrixFreeRange free_candidates_range_;  // of the candidates: whether one scale fits both
  Buffer<long long> rows_;
  // An off-pool node (add_node_at, add_validation_column_at): d_ center values, then gamma.
  Buffer<T> node_;
  Buffer<double> norm2_, proj2_, g_;
  Buffer<unsigned char> used_;
  std::vector<unsigned char> used_host_;  // mirror of used_, for argument checks
  // Basis Q (npad_ x capacity, column-major; column nodes_+1 is CGS2's working vector).
  std::size_t nodes_ = 0, basis_capacity_ = 0;
  std::size_t planned_columns_ = 0;  // reserve_nodes' basis size: doubling stops there
  Buffer<T> q_, h_, a_;
  // Compact basis (gpu/compact_basis_kernels.hpp): Q's columns as half codes (npad_ x
  // basis_capacity_) with a scale each; q_ then has two columns (basis_column). Its scratch:
  // the projection's partial sums, the encoding factor, and phi's, u's and the store's sums.
  bool compact_ = false;
  std::string compact_reason_;  // why (basis_storage)
  Buffer<unsigned short> qh_;
  Buffer<float> qh_scale_, compact_partial_, compact_encode_;
  Buffer<double> compact_stats_;
  bool basis_set_ = false;  // Q holds a basis (after reset_to_bias or import_state)
  // CGS's second projection: partial sums per row chunk, and a ticket per column group.
  Buffer<T> cgs_partial_;
  std::size_t reorthogonalizations_ = 0;  // CGS calls that projected twice
  // z_c = q_j^T phi_c per candidate (row-major candidates x basis_capacity_); the first
  // history_columns_ columns are complete for every unused candidate.
  Buffer<T> history_;
  std::size_t history_columns_ = 0;
  // Constants for device pointer mode, reduction scratch and the results copied back.
  Buffer<T> constants_;  // 1, 0, -1
  // results_: the fixed slots of gpu/kernel_constants.hpp, a (k values) and h (basis capacity).
  Buffer<double> reduce_values_, results_, results_host_;
  std::size_t h_offset_ = 0;
  // Lazy CGS2 left a = q^T E in the results: update() leaves E -= q a^T to the next CGS pass
  // (or settle_basis()).
  bool a_ready_ = false;
  // Lazy CGS2: Q's column nodes_ still holds u, with its second projection's coefficients in
  // h_ + basis_capacity_ and ||q|| in results[kNormU]; E still owes its update by it.
  mutable bool pending_ = false;
  // ||E||_F^2 as update() returns it (lazy updates subtract ||a||^2 from the last exact one).
  double residual_norm2_ = 0.0;
  // add_and_update's marks between its two steps and after them, for the steps' times, and
  // after its copy back, which it waits for while the next candidate's column is evaluated.
  std::unique_ptr<Event> added_, updated_, copied_;
  // The candidate whose column add_and_update evaluated into column_ ahead of its add
  // (matrix-free), or kNoColumn.
  static constexpr std::size_t kNoColumn = static_cast<std::size_t>(-1);
  std::size_t column_ahead_ = kNoColumn;
  Buffer<long long> reduce_indices_;
  Buffer<unsigned int> tickets_;

  // The selection computed at the end of update() for the last requested mode and
  // parameters, so the next select_*() returns without touching the device.
  SelectRequest last_request_{kSelectNone, 0.0, 0.0, 0};
  // Row sharding: the group, and per-candidate scratch for the sums that cross it.
  std::shared_ptr<model::RowShards> shards_;
  Buffer<T> shard_sums_;
  Buffer<double> shard_scores_;
  // Candidates marked dependent under tolerances up to dependent_tol_ (see kMarkDependent).
  bool dependents_marked_ = false;
  double dependent_tol_ = 0.0;
  bool selection_ready_ = false;
  model::Selection ready_selection_;
};

}  // namespace rbf::gpu
