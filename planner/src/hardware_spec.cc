#include "shardlab/planner/hardware_spec.h"

namespace shardlab::planner {

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kTf32:
      return "tf32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp16:
      return "fp16";
    case Precision::kFp8:
      return "fp8";
  }
  return "fp32";
}

std::optional<Precision> parse_precision(std::string_view s) {
  for (int i = 0; i < kNumPrecisions; ++i) {
    const auto p = static_cast<Precision>(i);
    if (s == to_string(p)) return p;
  }
  return std::nullopt;
}

int precision_bytes(Precision p) {
  switch (p) {
    case Precision::kFp32:
    case Precision::kTf32:
      return 4;
    case Precision::kBf16:
    case Precision::kFp16:
      return 2;
    case Precision::kFp8:
      return 1;
  }
  return 4;
}

std::string_view to_string(CollAlgorithm a) {
  switch (a) {
    case CollAlgorithm::kRing:
      return "ring";
    case CollAlgorithm::kTree:
      return "tree";
    case CollAlgorithm::kNvls:
      return "nvls";
    case CollAlgorithm::kCollNet:
      return "collnet";
    case CollAlgorithm::kNvlsTree:
      return "nvls_tree";
  }
  return "ring";
}

std::string_view to_string(CollProtocol p) {
  switch (p) {
    case CollProtocol::kLl:
      return "LL";
    case CollProtocol::kLl128:
      return "LL128";
    case CollProtocol::kSimple:
      return "Simple";
  }
  return "Simple";
}

}  // namespace shardlab::planner

namespace shardlab::planner {

std::optional<double> HostProfile::op_ms(std::string_view op, int launches, int count) const {
  const auto it = ops.find(op);
  if (it == ops.end()) return std::nullopt;
  const HostOpCost& c = it->second;
  const double one = between_ops_ms + c.before_ms + launches * launch_ms +
                     (launches > 1 ? (launches - 1) * c.between_launches_ms : 0.0) + c.after_ms;
  return count * one;
}

}  // namespace shardlab::planner
