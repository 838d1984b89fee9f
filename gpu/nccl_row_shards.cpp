// The row-shard group over several GPUs of one host: sums through NCCL, one communicator per device.
//
// Each sum gathers every shard's values on every device (ncclAllGather) and adds them on the
// host in shard order, so all shards receive the same bits on every run whatever ring or tree
// NCCL picks; an all-reduce would leave the order of the additions to NCCL. The vectors are
// small (a few thousand values per iteration), so the gather costs what the latency does.
#include <algorithm>
#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "contracts/gpu_entry_points.hpp"

#ifdef RBF_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>
#endif

namespace rbf::gpu {

#ifdef RBF_HAVE_NCCL
namespace {

// NCCL is opened at run time, when several GPUs are asked for: rbfnet on one GPU or on a
// Jetson needs no NCCL installed.
struct Nccl {
  decltype(&::ncclCommInitAll) comm_init_all = nullptr;
  decltype(&::ncclAllGather) all_gather = nullptr;
  decltype(&::ncclCommAbort) comm_abort = nullptr;
  decltype(&::ncclCommDestroy) comm_destroy = nullptr;
  decltype(&::ncclGetErrorString) error_string = nullptr;
};

template <typename F>
void load_symbol(void* library, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(library, name));
  if (out == nullptr) throw InputError(std::string("the NCCL library found lacks ") + name);
}

const Nccl& nccl() {
  static const Nccl loaded = [] {
    void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) library = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr)
      throw InputError("backend.gpu_devices with several devices needs NCCL (libnccl.so.2), which was not found");
    Nccl n;
    load_symbol(library, "ncclCommInitAll", n.comm_init_all);
    load_symbol(library, "ncclAllGather", n.all_gather);
    load_symbol(library, "ncclCommAbort", n.comm_abort);
    load_symbol(library, "ncclCommDestroy", n.comm_destroy);
    load_symbol(library, "ncclGetErrorString", n.error_string);
    return n;
  }();
  return loaded;
}

void nccl_check(ncclResult_t result, const char* what) {
  if (result != ncclSuccess)
    throw model::DeviceError(std::string("NCCL ") + what + " failed: " + nccl().error_string(result));
}

class NcclRowShards final : public model::RowShards {
 public:
  NcclRowShards(std::size_t index, std::size_t count, int device, ncclComm_t comm)
      : RowShards(index, count), device_(device), comm_(comm) {}
  ~NcclRowShards() override {
    RBF_CUDA_CHECK_LOG(cudaSetDevice(device_));
    if (stream_ != nullptr) RBF_CUDA_CHECK_LOG(cudaStreamDestroy(stream_));
    if (send_ != nullptr) RBF_CUDA_CHECK_LOG(cudaFree(send_));
    if (gathered_ != nullptr) RBF_CUDA_CHECK_LOG(cudaFree(gathered_));
    if (comm_ != nullptr) nccl().comm_destroy(comm_);
  }

  void sum(double* values, std::size_t n) override {
    if (aborted_.load()) throw model::ShardGroupAborted();
    if (n == 0) return;
    RBF_CUDA_CHECK(cudaSetDevice(device_));
    reserve(n);
    const std::size_t shards = count();
    RBF_CUDA_CHECK(cudaMemcpyAsync(send_, values, n * sizeof(double), cudaMemcpyHostToDevice, stream_));
    const ncclResult_t gathered = nccl().all_gather(send_, gathered_, n, ncclDouble, comm_, stream_);
    if (aborted_.load()) throw model::ShardGroupAborted();
    nccl_check(gathered, "all-gather");
    host_.resize(shards * n);
    RBF_CUDA_CHECK(cudaMemcpyAsync(host_.data(), gathered_, shards * n * sizeof(double), cudaMemcpyDeviceToHost,
                                   stream_));
    const cudaError_t synced = cudaStreamSynchronize(stream_);
    if (aborted_.load()) throw model::ShardGroupAborted();
    RBF_CUDA_CHECK(synced);
    for (std::size_t i = 0; i < n; ++i) {
      double total = 0.0;
      for (std::size_t s = 0; s < shards; ++s) total += host_[s * n + i];
      values[i] = total;
    }
  }

  // Another thread's shard failed: NCCL's abort wakes a gather that waits for it.
  void abort() override {
    if (aborted_.exchange(true)) return;
    if (comm_ != nullptr) {
      nccl().comm_abort(comm_);
      comm_ = nullptr;
    }
  }

 private:
  void reserve(std::size_t n) {
    if (stream_ == nullptr) RBF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    if (n <= capacity_) return;
    if (send_ != nullptr) RBF_CUDA_CHECK(cudaFree(send_));
    if (gathered_ != nullptr) RBF_CUDA_CHECK(cudaFree(gathered_));
    send_ = gathered_ = nullptr;
    const std::size_t capacity = std::max<std::size_t>(n, 4096);
    RBF_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&send_), capacity * sizeof(double)));
    RBF_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&gathered_), count() * capacity * sizeof(double)));
    capacity_ = capacity;
  }

  int device_;
  ncclComm_t comm_;
  std::atomic<bool> aborted_{false};
  cudaStream_t stream_ = nullptr;
  double* send_ = nullptr;
  double* gathered_ = nullptr;
  std::size_t capacity_ = 0;
  std::vector<double> host_;
};

}  // namespace
#endif

std::vector<std::shared_ptr<model::RowShards>> make_device_row_shards(const std::vector<int>& devices) {
  const DeviceReport report = query_devices();
  std::set<int> seen;
  for (int device : devices) {
    if (device < 0 || static_cast<std::size_t>(device) >= report.devices.size())
      throw InputError("backend.gpu_devices names device " + std::to_string(device) + ", but this machine has " +
                       std::to_string(report.devices.size()) + " CUDA device(s)");
    if (!seen.insert(device).second)
      throw InputError("backend.gpu_devices names device " + std::to_string(device) +
                       " twice; NCCL needs distinct devices");
  }
#ifdef RBF_HAVE_NCCL
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  const Nccl& library = nccl();
  const ncclResult_t started = library.comm_init_all(comms.data(), static_cast<int>(devices.size()), devices.data());
  if (started != ncclSuccess)
    throw model::DeviceError(std::string("NCCL could not start on backend.gpu_devices: ") + library.error_string(started));
  std::vector<std::shared_ptr<model::RowShards>> shards;
  for (std::size_t i = 0; i < devices.size(); ++i)
    shards.push_back(std::make_shared<NcclRowShards>(i, devices.size(), devices[i], comms[i]));
  return shards;
#else
  throw InputError("backend.gpu_devices with several distinct devices needs NCCL, which this rbfnet was built without (nccl.h was not found)");
#endif
}

}  // namespace rbf::gpu
