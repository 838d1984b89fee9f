// Partitioned training: k-means regions, one ordinary growth per part (concurrent on the CPU),
// the blended network.
#include "model/partitioned_training.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "data/errors.hpp"
#include "model/partitions.hpp"
#include "model/training_data.hpp"

namespace rbf::model {

namespace {

// The rows `picked` (indices into the training rows `train`) of `dataset` as a data set.
data::Dataset part_dataset(const data::Dataset& dataset, const std::vector<std::size_t>& train,
                           const std::vector<std::size_t>& picked, std::size_t part) {
  data::Dataset out = data::columns_of(dataset);
  out.source = dataset.source + " (part " + std::to_string(part + 1) + ")";
  out.rows = picked.size();
  out.x.reserve(picked.size() * dataset.features);
  out.y.reserve(picked.size() * dataset.targets);
  for (const std::size_t index : picked) {
    const std::size_t r = train[index];
    out.x.insert(out.x.end(), dataset.row(r), dataset.row(r) + dataset.features);
    out.y.insert(out.y.end(), dataset.y.begin() + static_cast<std::ptrdiff_t>(r * dataset.targets),
                 dataset.y.begin() + static_cast<std::ptrdiff_t>((r + 1) * dataset.targets));
    if (!dataset.weights.empty()) out.weights.push_back(dataset.weights[r]);
  }
  return out;
}

// GPU parts grown at once on each device: a part of a few hundred thousand rows and tens of
// nodes spends most of its time in set-up and in the host's share of each iteration, which
// the other parts' device work overlaps.
constexpr std::size_t kPartsAtOncePerGpu = 4;

int machine_threads(int configured) {
  if (configured > 0) return configured;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

// The partition of the training rows `train` (standardized by `scaler`), and each part's rows.
PartitionPlan partition(const data::Dataset& dataset, const std::vector<std::size_t>& train,
                        const data::Standardizer& scaler, const Config& config,
                        std::vector<std::vector<std::size_t>>& rows) {
  const std::size_t n = train.size(), d = dataset.features;
  std::vector<double> x(n * d);
  for (std::size_t i = 0; i < n; ++i) std::copy_n(dataset.row(train[i]), d, x.begin() + static_cast<std::ptrdiff_t>(i * d));
  scaler.transform(x.data(), n);
  const PartitionPlan plan = plan_partitions(x.data(), n, d, config.trainer.partitions, config.data.seed + 3);
  rows = part_rows(plan, x.data(), n);
  const auto by_size = [](const auto& a, const auto& b) { return a.size() < b.size(); };
  spdlog::info("partitioned {} training rows into {} parts (k-means; blend width {:.3g}, rows per part {} to {})", n,
               plan.parts, plan.width, std::min_element(rows.begin(), rows.end(), by_size)->size(),
               std::max_element(rows.begin(), rows.end(), by_size)->size());
  return plan;
}

// Grows every part with `train_part`: CPU parts several at once with the cores split between
// them, GPU parts kPartsAtOncePerGpu at once on each of backend.gpu_devices (or gpu_device),
// auto parts one after another. The first error stops the others and is rethrown.
std::vector<TrainResult> grow_parts(const data::Dataset& dataset, const std::vector<std::size_t>& train,
                                    const std::vector<std::vector<std::size_t>>& rows, const Config& config,
                                    const TrainOptions& options, const PartTrainer& train_part) {
  const std::size_t parts = rows.size();
  const bool cpu = config.backend.kind == BackendKind::cpu, gpu = config.backend.kind == BackendKind::gpu;
  const int threads = machine_threads(config.trainer.threads);
  // The devices parts run on, each worker on one of them in turn; every part is one network.
  const std::vector<int> devices =
      config.backend.gpu_devices.empty() ? std::vector<int>{config.backend.gpu_device} : config.backend.gpu_devices;
  const std::size_t workers = cpu   ? std::min<std::size_t>(parts, static_cast<std::size_t>(threads))
                              : gpu ? std::min<std::size_t>(parts, kPartsAtOncePerGpu * devices.size())
                                    : 1;
  Config part_config = config;
  part_config.backend.gpu_devices.clear();
  part_config.trainer.partitions = 1;
  part_config.data.validation_path.clear();
  // stopping.max_nodes caps the model's nodes in all: each part grows its share.
  part_config.stopping.max_nodes = std::max<std::size_t>(1, (config.stopping.max_nodes + parts - 1) / parts);
  part_config.trainer.threads = std::max(1, threads / static_cast<int>(workers));

  std::vector<TrainResult> results(parts);
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> next{0};
  std::mutex report;  // callbacks and the first error
  std::exception_ptr error;
  auto work = [&](std::size_t worker) {
    Config on_device = part_config;
    on_device.backend.gpu_device = devices[worker % devices.size()];
    for (std::size_t p = next++; p < parts; p = next++) {
      if (stop) return;
      TrainOptions o;
      o.stop_requested = &stop;
      o.hooks = options.hooks;
      o.data_sha256 = options.data_sha256;
      auto forward = [&, p](const IterationCallback& to, const IterationRecord& record) {
        if (options.stop_requested != nullptr && options.stop_requested->load()) stop = true;
        if (!to) return;
        IterationRecord tagged = record;
        tagged.part = p + 1;
        const std::lock_guard<std::mutex> lock(report);
        to(tagged);
      };
      o.on_iteration = [&, forward](const IterationRecord& r) { forward(options.on_iteration, r); };
      o.on_fold_iteration = [&, forward](const IterationRecord& r) { forward(options.on_fold_iteration, r); };
      try {
        const auto began = std::chrono::steady_clock::now();
        results[p] = train_part(part_dataset(dataset, train, rows[p], p), on_device, o);
        results[p].total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      } catch (...) {
        const std::lock_guard<std::mutex> lock(report);
        if (!error) error = std::current_exception();
        stop = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return results;
}

}  // namespace

TrainResult train_partitioned(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                              const PartTrainer& train_part) {
  if (options.init != nullptr || options.resume != nullptr || options.checkpoint_every > 0)
    throw InputError("trainer.partitions: continued training, checkpoints and resume work on one network only; "
                     "train with --partitions 1 for them");
  const auto start = std::chrono::steady_clock::now();
  const data::Split split = detail::validation_split(dataset, config, options.validation_from);
  const data::Standardizer scaler =
      data::Standardizer::fit(dataset.x.data(), dataset.rows, dataset.features, split.train);
  std::vector<std::vector<std::size_t>> rows;
  const PartitionPlan plan = partition(dataset, split.train, scaler, config, rows);
  std::vector<TrainResult> results = grow_parts(dataset, split.train, rows, config, options, train_part);

  TrainResult result;
  Network& net = result.network;
  const Network& first = results.front().network;
  net.task = dataset.task;
  net.inputs = dataset.features;
  net.outputs = first.outputs;
  net.feature_names = first.feature_names;
  net.target_names = first.target_names;
  net.class_names = first.class_names;
  net.x_scaler = scaler;
  net.y_scaler = dataset.task == data::Task::classification ? first.y_scaler : data::Standardizer::identity(net.outputs);
  net.bias.assign(net.outputs, 0.0);
  net.part_centres = plan.centres;
  net.part_width = plan.width;
  net.part_blend = plan.blend;
  net.provenance = first.provenance;
  for (std::size_t p = 0; p < plan.parts; ++p) {
    TrainResult& part = results[p];
    part.network.training_state.clear();
    for (IterationRecord& record : part.iterations) record.part = p + 1;
    result.iterations.insert(result.iterations.end(), part.iterations.begin(), part.iterations.end());
    result.parts.push_back(PartReport{rows[p].size(), part.network.total_nodes(), part.total_seconds, part.stop_reason,
                                      part.best_val_rmse});
    result.interrupted = result.interrupted || part.interrupted;
    result.candidates += part.candidates;
    net.parts.push_back(std::move(part.network));
  }
  result.train_rows = split.train.size();
  result.validation_rows = split.validation.size();
  result.sigma0 = results.front().sigma0;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.stop_reason = fmt::format("grew {} parts ({} nodes in all)", plan.parts, net.total_nodes());
  if (result.interrupted) {
    result.stop_reason = "interrupted";
    result.nothing_to_save = true;
    result.unsaved_stage = "partitioned training, before every part was grown";
  }
  return result;
}

}  // namespace rbf::model
