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

// GPU time, µs, of the kernels launched inside each op: launches sorted by
// time, kernels by correlation.
std::vector<double> op_kernel_us(const RawTrace& t) {
  std::unordered_map<int64_t, double> kernel_us;
  for (const detail::GpuEvent& g : t.gpu) {
    if (g.kind == detail::GpuKind::kKernel) kernel_us[g.correlation] += g.dur_us;
  }
  std::vector<detail::Launch> launches = t.launches;
  std::sort(launches.begin(), launches.end(),
            [](const detail::Launch& a, const detail::Launch& b) { return a.ts_us < b.ts_us; });
  std::vector<double> out;
  out.reserve(t.comm_ops.size());
  for (const CommOp& op : t.comm_ops) {
    double us = 0.0;
    auto it = std::lower_bound(launches.begin(), launches.end(), op.ts_us,
                               [](const detail::Launch& l, double ts) { return l.ts_us < ts; });
    for (; it != launches.end() && it->ts_us <= op.end_us; ++it) {
      if (const auto k = kernel_us.find(it->correlation); k != kernel_us.end()) us += k->second;
    }
    out.push_back(us);
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
    const std::vector<double> kernel_us = op_kernel_us(*raw);
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
  if (out.device.empty()) out.device = "unknown GPU";
  if (out.measurements.empty()) {
    const std::string none =
        "no collective with a recorded size in the traces (record them with "
        "torch.profiler.profile(record_shapes=True))";
    if (require_collectives) return Status::invalid_argument(none);
    out.notes.push_back(none + ": collectives not fitted");
  }
  return out;
}

}  // namespace shardlab::trace
