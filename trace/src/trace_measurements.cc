#include "shardlab/trace/trace_measurements.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "trace_events.h"

namespace shardlab::trace {
namespace {

using detail::CommOp;
using detail::RawTrace;

constexpr double kUsPerMs = 1000.0;

std::optional<sim::CollectiveKind> kind_of(const std::string& name) {
  if (name == "nccl:all_to_all" || name == "nccl:all_to_all_single" || name == "nccl:alltoall_base")
    return sim::CollectiveKind::kAllToAll;
  if (name == "nccl:all_reduce") return sim::CollectiveKind::kAllReduce;
  if (name == "nccl:_reduce_scatter_base" || name == "nccl:reduce_scatter" ||
      name == "nccl:reduce_scatter_tensor_coalesced")
    return sim::CollectiveKind::kReduceScatter;
  if (name == "nccl:_all_gather_base" || name == "nccl:all_gather" ||
      name == "nccl:all_gather_into_tensor_coalesced")
    return sim::CollectiveKind::kAllGather;
  return std::nullopt;
}

// What one rank sends of `bytes` (the op's first input) among n ranks.
double bytes_sent(sim::CollectiveKind kind, double bytes, int n) {
  sim::CollectiveSpec spec;
  spec.kind = kind;
  spec.members.assign(static_cast<size_t>(n), 0);
  switch (kind) {
    case sim::CollectiveKind::kAllToAll:
      spec.from_bytes.assign(static_cast<size_t>(n), bytes / n);
      spec.to_bytes.assign(static_cast<size_t>(n), 0.0);
      break;
    case sim::CollectiveKind::kReduceScatter:
      spec.chunks.assign(static_cast<size_t>(n), bytes / n);
      break;
    case sim::CollectiveKind::kAllGather:
      spec.chunks.assign(static_cast<size_t>(n), bytes);
      break;
    case sim::CollectiveKind::kAllReduce:
      spec.bytes = bytes;
      break;
    case sim::CollectiveKind::kEstimate:
      return 0.0;
  }
  return spec.bytes_sent(0);
}

// A CPU-side op's window, and the thread whose launches count (-1: any).
struct OpWindow {
  double ts_us = 0.0, end_us = 0.0;
  int64_t tid = -1;
};

struct OpKernels {
  double us = 0.0;          // summed kernel durations
  bool tensor_f32 = false;  // one of them computes fp32 data on tensor cores
};

// The kernels launched inside each window: launches sorted by time, kernels
// by correlation.
std::vector<OpKernels> op_kernels(const RawTrace& t, const std::vector<OpWindow>& windows) {
  std::unordered_map<int64_t, OpKernels> by_correlation;
  for (const detail::GpuEvent& g : t.gpu) {
    if (g.kind != detail::GpuKind::kKernel) continue;
    OpKernels& k = by_correlation[g.correlation];
    k.us += g.dur_us;
    k.tensor_f32 = k.tensor_f32 || (g.families & detail::kTensorF32) != 0;
  }
  std::vector<detail::Launch> launches = t.launches;
  std::sort(launches.begin(), launches.end(),
            [](const detail::Launch& a, const detail::Launch& b) { return a.ts_us < b.ts_us; });
  std::vector<OpKernels> out;
  out.reserve(windows.size());
  for (const OpWindow& w : windows) {
    OpKernels sum;
    auto it = std::lower_bound(launches.begin(), launches.end(), w.ts_us,
                               [](const detail::Launch& l, double ts) { return l.ts_us < ts; });
    for (; it != launches.end() && it->ts_us <= w.end_us; ++it) {
      if (w.tid >= 0 && it->tid >= 0 && it->tid != w.tid) continue;
      if (const auto k = by_correlation.find(it->correlation); k != by_correlation.end()) {
        sum.us += k->second.us;
        sum.tensor_f32 = sum.tensor_f32 || k->second.tensor_f32;
      }
    }
    out.push_back(sum);
  }
  return out;
}

// The arithmetic of a matrix product on `type` data (GemmOp::type).
std::optional<planner::Precision> gemm_precision(const std::string& type, bool tensor_f32) {
  if (type == "float") return tensor_f32 ? planner::Precision::kTf32 : planner::Precision::kFp32;
  if (type == "c10::Half") return planner::Precision::kFp16;
  if (type == "c10::BFloat16") return planner::Precision::kBf16;
  return std::nullopt;
}

bool in_some_step(const RawTrace& t, double ts_us) {
  return std::any_of(t.steps.begin(), t.steps.end(), [&](const detail::StepMark& s) {
    return ts_us >= s.ts_us && ts_us < s.ts_us + s.dur_us;
  });
}

// The file's matrix-product records (trace_measurements.h).
std::vector<kernels::GemmRecord> gemm_records(const RawTrace& t,
                                              std::map<std::string, int>& skipped) {
  std::vector<OpWindow> windows;
  for (const detail::GemmOp& g : t.gemm_ops) windows.push_back({g.ts_us, g.end_us, g.tid});
  const std::vector<OpKernels> kernels = op_kernels(t, windows);
  using Key = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t, planner::Precision>;
  std::map<Key, std::vector<double>> samples;
  std::vector<Key> order;
  for (size_t i = 0; i < t.gemm_ops.size(); ++i) {
    const detail::GemmOp& g = t.gemm_ops[i];
    if (!in_some_step(t, g.ts_us)) continue;
    const std::optional<planner::Precision> p = gemm_precision(g.type, kernels[i].tensor_f32);
    if (!p) {
      ++skipped["a matrix product of a type the simulator does not model (" + g.type + ")"];
      continue;
    }
    if (kernels[i].us <= 0.0) {
      ++skipped["a matrix product that launched no kernel"];
      continue;
    }
    const Key key{g.name, g.m, g.n, g.k, g.batch, *p};
    auto [it, fresh] = samples.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.push_back(kernels[i].us / kUsPerMs);
  }
  std::vector<kernels::GemmRecord> out;
  for (const Key& key : order) {
    const auto& [name, m, n, k, batch, precision] = key;
    out.push_back({.rank = t.rank,
                   .op = name,
                   .gemm = {.m = m, .n = n, .k = k, .batch = batch},
                   .precision = precision,
                   .timing = kernels::summarize(samples[key])});
  }
  return out;
}

}  // namespace

Result<TraceMeasurements> trace_measurements(const std::vector<std::string>& paths,
                                             int local_world_size, const TraceOptions& options,
                                             bool require_collectives) {
  if (local_world_size < 1) {
    return Status::invalid_argument("local world size must be >= 1, got " +
                                    std::to_string(local_world_size));
  }
  Result<std::vector<std::string>> files = detail::trace_files(paths);
  if (!files) return files.status();
  TraceMeasurements out;
  std::map<std::string, int> skipped;  // reason -> ops
  int collective = 0;
  for (const std::string& file : *files) {
    Result<RawTrace> raw = detail::read_trace_events(file, options.step_prefix);
    if (!raw) return raw.status();
    if (raw->world_size < 1) {
      return Status::invalid_argument(file +
                                      ": no distributedInfo.world_size: cannot tell how many ranks "
                                      "took part in its collectives");
    }
    out.files.push_back(file);
    if (out.device.empty()) out.device = raw->device;
    std::vector<OpWindow> comm_windows;
    for (const CommOp& op : raw->comm_ops) comm_windows.push_back({op.ts_us, op.end_us, -1});
    std::vector<double> kernel_us;
    for (const OpKernels& k : op_kernels(*raw, comm_windows)) kernel_us.push_back(k.us);
    for (kernels::GemmRecord& g : gemm_records(*raw, skipped)) out.gemms.push_back(std::move(g));
    // Samples per (kind name, size, occurrence in the step).
    using Key = std::tuple<std::string, int64_t, int>;
    std::map<Key, std::vector<double>> samples;
    std::vector<Key> order;
    for (const detail::StepMark& step : raw->steps) {
      std::map<std::pair<std::string, int64_t>, int> seen;
      for (size_t i = 0; i < raw->comm_ops.size(); ++i) {
        const CommOp& op = raw->comm_ops[i];
        if (op.ts_us < step.ts_us || op.ts_us >= step.ts_us + step.dur_us) continue;
        if (!kind_of(op.name)) {
          ++skipped["not a collective the simulator models (" + op.name + ")"];
          continue;
        }
        if (op.elements <= 0 || op.element_bytes <= 0 || kernel_us[i] <= 0.0) {
          ++skipped["no recorded size or no kernel"];
          continue;
        }
        const int64_t bytes = op.elements * op.element_bytes;
        const Key key{op.name, bytes, seen[{op.name, bytes}]++};
        auto [it, fresh] = samples.try_emplace(key);
        if (fresh) order.push_back(key);
        it->second.push_back(kernel_us[i] / kUsPerMs);
      }
    }
    const int n = raw->world_size;
    for (const Key& key : order) {
      const auto& [name, bytes, occurrence] = key;
      kernels::Measurement m;
      m.rank = raw->rank;
      m.collective = collective++;
      m.collective_kind = *kind_of(name);
      m.phase = m.collective_kind == sim::CollectiveKind::kAllReduce ? sim::Phase::kDdpAllreduce
                                                                     : sim::Phase::kOutputDist;
      m.members = n;
      m.inter_host = n > local_world_size;
      m.bytes = bytes_sent(m.collective_kind, static_cast<double>(bytes), n);
      m.model_bytes = m.bytes;
      m.timing = kernels::summarize(samples[key]);
      out.measurements.push_back(m);
    }
  }
  for (const auto& [why, count] : skipped)
    out.notes.push_back(std::to_string(count) + " op" + (count == 1 ? "" : "s") +
                        " skipped: " + why);
  if (out.device.empty()) out.device = kUnknownDevice;
  if (out.measurements.empty()) {
    const std::string none =
        "no collective with a recorded size in the traces (record them with "
        "torch.profiler.profile(record_shapes=True))";
    if (require_collectives && out.gemms.empty()) return Status::invalid_argument(none);
    out.notes.push_back(none + ": collectives not fitted");
  }
  return out;
}

}  // namespace shardlab::trace
