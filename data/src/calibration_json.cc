// Calibration profile JSON: a streaming writer and a validating reader in the
// scenario loader's style (the first error wins, naming file, path and value).
#include "shardlab/data/calibration_json.h"

#include <utility>

#include "format_keys.h"
#include "json_document.h"
#include "json_input.h"
#include "json_reader.h"
#include "json_writer.h"
#include "message_text.h"
#include "read_document.h"
#include "shardlab/data/file_io.h"

namespace shardlab::data {
namespace {

using internal::EnumValue;
using internal::IntValue;
using internal::invalid_at;
using internal::Json;
using internal::JsonPath;
using internal::JsonWriter;
using internal::Null;
using internal::NumberValue;
using internal::ObjectReader;
using internal::StringValue;
using internal::with_origin;
using planner::ComputeKernel;
using planner::CostCalibration;
using planner::DimClass;

constexpr std::string_view kFormat = "shardlab-calibration";
constexpr std::size_t kMaxProfileBytes = std::size_t{64} << 20;

// The fitted constants feed the planner's times: the scenario's limits
// (planner/limits.h) keep them finite.
const NumberValue kBandwidth{.min = planner::kMinBandwidth, .max = planner::kMaxBandwidth};
const NumberValue kTimeMs{.min = 0.0, .max = planner::kMaxTimeMs};
const NumberValue kMultiplier{.min = 0.0, .max = planner::kMaxFactor};
const NumberValue kNonNegative{.min = 0.0};
// A fraction of the GEMM roofline's peak (kernels::fit_gemm_efficiency's range).
const NumberValue kEfficiency{.min = 0.0, .min_exclusive = true, .max = 1.0};
// The kernels a profile calibrates: those ShardLab replays. TorchRec
// 2026-08's key-value and virtual-table kernels have no replay; the
// simulator models their SSD tier instead (docs/simulation.md).
std::optional<ComputeKernel> parse_calibrated_kernel(std::string_view s) {
  const std::optional<ComputeKernel> k = planner::parse_compute_kernel(s);
  if (k && planner::is_guarded(*k)) return std::nullopt;
  return k;
}
const EnumValue<ComputeKernel> kKernelValue{
    "compute kernel", parse_calibrated_kernel,
    "dense, fused, fused_uvm, fused_uvm_caching, quant, quant_uvm, quant_uvm_caching"};
const EnumValue<DimClass> kDimClassValue{"dim class", planner::parse_dim_class,
                                         "narrow, half, full"};

// ---- Writing ------------------------------------------------------------------

void write_comm(JsonWriter& w, std::string_view key, const planner::CommCalibration& c) {
  if (!c.bandwidth_bytes_per_ms && !c.latency_ms) return;
  w.key(key);
  w.begin_object();
  if (c.bandwidth_bytes_per_ms) w.member("bandwidth_bytes_per_ms", *c.bandwidth_bytes_per_ms);
  if (c.latency_ms) w.member("latency_ms", *c.latency_ms);
  w.end_object();
}

void write_parameters(JsonWriter& w, const CostCalibration& c) {
  w.key("parameters");
  w.begin_object();
  w.key("compute");
  w.begin_array();
  for (int k = 0; k < planner::kNumComputeKernels; ++k) {
    const auto kernel = static_cast<ComputeKernel>(k);
    const std::optional<double>& overhead = c.overhead(kernel);
    const std::optional<double>& bwd = c.bwd_multiplier_of(kernel);
    bool any = false;
    for (int cls = 0; cls < planner::kNumDimClasses; ++cls) {
      const auto dim_class = static_cast<DimClass>(cls);
      const std::optional<double>& bw = c.bandwidth(kernel, dim_class);
      if (!bw) continue;
      any = true;
      w.begin_object();
      w.member("kernel", planner::to_string(kernel));
      w.member("dim_class", planner::to_string(dim_class));
      w.member("bandwidth_bytes_per_ms", *bw);
      if (overhead) w.member("overhead_ms", *overhead);
      if (bwd) w.member("bwd_multiplier", *bwd);
      w.end_object();
    }
    if (!any && (overhead || bwd)) {
      w.begin_object();
      w.member("kernel", planner::to_string(kernel));
      if (overhead) w.member("overhead_ms", *overhead);
      if (bwd) w.member("bwd_multiplier", *bwd);
      w.end_object();
    }
  }
  w.end_array();
  internal::write_optional(w, "bwd_multiplier", c.bwd_multiplier);
  w.key("comm");
  w.begin_object();
  write_comm(w, "intra_host", c.intra_host);
  write_comm(w, "inter_host", c.inter_host);
  w.end_object();
  // The dense model's GEMM terms per arithmetic, only those fitted.
  const auto any = [](const std::array<std::optional<double>, planner::kNumPrecisions>& a) {
    return std::any_of(a.begin(), a.end(), [](const auto& e) { return e.has_value(); });
  };
  const auto write_by_precision =
      [&w](std::string_view key,
           const std::array<std::optional<double>, planner::kNumPrecisions>& a) {
        w.key(key);
        w.begin_object();
        for (int p = 0; p < planner::kNumPrecisions; ++p) {
          if (const std::optional<double>& e = a[static_cast<size_t>(p)])
            w.member(planner::to_string(static_cast<planner::Precision>(p)), *e);
        }
        w.end_object();
      };
  if (any(c.gemm_efficiency) || any(c.gemm_kernel_ms)) {
    w.key("dense");
    w.begin_object();
    if (any(c.gemm_efficiency)) write_by_precision("gemm_efficiency", c.gemm_efficiency);
    if (any(c.gemm_kernel_ms)) write_by_precision("gemm_kernel_ms", c.gemm_kernel_ms);
    w.end_object();
  }
  w.end_object();
}

void write_fit(JsonWriter& w, const CalibrationProfile& p) {
  w.key("fit");
  w.begin_object();
  w.member("count", p.fit_count);
  w.member("held_out", p.held_out);
  internal::write_optional(w, "mape_before", p.mape_before);
  internal::write_optional(w, "mape_after", p.mape_after);
  internal::write_optional(w, "fit_mape_before", p.fit_mape_before);
  internal::write_optional(w, "fit_mape_after", p.fit_mape_after);
  w.key("groups");
  w.begin_array();
  for (const kernels::CalibrationGroup& g : p.groups) {
    w.begin_object();
    w.member("name", g.name);
    w.member("count", g.fit_count);
    w.member("held_out", g.held_out);
    w.member("fitted", g.fitted);
    internal::write_optional(w, "mape_before", g.mape_before);
    internal::write_optional(w, "mape_after", g.mape_after);
    internal::write_optional(w, "fit_mape_before", g.fit_mape_before);
    internal::write_optional(w, "fit_mape_after", g.fit_mape_after);
    w.end_object();
  }
  w.end_array();
  w.key("notes");
  w.begin_array();
  for (const std::string& n : p.notes) w.value(n);
  w.end_array();
  w.end_object();
}

// ---- Reading ------------------------------------------------------------------

// Stores a per-kernel value that every entry of the kernel repeats; a second
// entry must agree with the first.
Status merge_kernel_value(const ObjectReader& e, std::string_view key, ComputeKernel kernel,
                          const std::optional<double>& value, std::optional<double>& slot) {
  if (!value) return Status::ok();
  if (slot && *slot != *value) {
    return invalid_at(e.path_of(key),
                      "differs from an earlier " + std::string(planner::to_string(kernel)) +
                          " entry's " + std::string(key),
                      e.find(key), Json(*slot).dump());
  }
  slot = value;
  return Status::ok();
}

Status read_compute(const Json& list, const JsonPath& path, CostCalibration& c) {
  if (!list.is_array()) return invalid_at(path, "must be a list of compute entries", &list);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonPath entry_path = path.at(i);
    ObjectReader e(list[i], entry_path);
    SHARDLAB_RETURN_IF_ERROR(e.check("a compute entry object", internal::kProfileComputeKeys));
    ComputeKernel kernel{};
    std::optional<DimClass> dim_class;
    std::optional<double> bandwidth, overhead, bwd;
    SHARDLAB_RETURN_IF_ERROR(e.require("kernel", kernel, kKernelValue, "a compute kernel name"));
    SHARDLAB_RETURN_IF_ERROR(e.read("dim_class", dim_class, kDimClassValue, Null::kMeansAbsent));
    SHARDLAB_RETURN_IF_ERROR(
        e.read("bandwidth_bytes_per_ms", bandwidth, kBandwidth, Null::kMeansAbsent));
    SHARDLAB_RETURN_IF_ERROR(e.read("overhead_ms", overhead, kTimeMs, Null::kMeansAbsent));
    SHARDLAB_RETURN_IF_ERROR(e.read("bwd_multiplier", bwd, kMultiplier, Null::kMeansAbsent));
    if (dim_class && !bandwidth) {
      return e.missing("bandwidth_bytes_per_ms", "bytes/ms > 0 for the entry's dim_class");
    }
    if (bandwidth && !dim_class)
      return e.missing("dim_class", "narrow, half or full for the entry's bandwidth");
    if (!dim_class && !overhead && !bwd) {
      return e.missing("overhead_ms", "ms >= 0, or bwd_multiplier, in an entry without dim_class");
    }
    if (dim_class) {
      std::optional<double>& slot = c.bandwidth(kernel, *dim_class);
      if (slot) {
        return invalid_at(e.path_of("dim_class"),
                          "a second entry for " + std::string(planner::to_string(kernel)) + "/" +
                              std::string(planner::to_string(*dim_class)),
                          e.find("dim_class"));
      }
      slot = bandwidth;
    }
    SHARDLAB_RETURN_IF_ERROR(
        merge_kernel_value(e, "overhead_ms", kernel, overhead, c.overhead(kernel)));
    SHARDLAB_RETURN_IF_ERROR(
        merge_kernel_value(e, "bwd_multiplier", kernel, bwd, c.bwd_multiplier_of(kernel)));
  }
  return Status::ok();
}

Status read_comm_scope(const ObjectReader& comm, std::string_view key,
                       planner::CommCalibration& out) {
  const Json* v = comm.find(key, Null::kMeansAbsent);
  if (v == nullptr) return Status::ok();
  const JsonPath path = comm.path_of(key);
  ObjectReader s(*v, path);
  SHARDLAB_RETURN_IF_ERROR(s.check("a comm scope object", internal::kProfileCommScopeKeys));
  SHARDLAB_RETURN_IF_ERROR(
      s.read("bandwidth_bytes_per_ms", out.bandwidth_bytes_per_ms, kBandwidth, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(s.read("latency_ms", out.latency_ms, kTimeMs, Null::kMeansAbsent));
  return Status::ok();
}

// {"tf32": x, ...}: one optional number per arithmetic.
Status read_by_precision(const ObjectReader& parent, const char* key, const NumberValue& range,
                         std::array<std::optional<double>, planner::kNumPrecisions>& out) {
  const Json* v = parent.find(key, Null::kMeansAbsent);
  if (v == nullptr) return Status::ok();
  ObjectReader r(*v, parent.path_of(key));
  std::array<std::string_view, planner::kNumPrecisions> names;
  for (int i = 0; i < planner::kNumPrecisions; ++i)
    names[static_cast<size_t>(i)] = planner::to_string(static_cast<planner::Precision>(i));
  SHARDLAB_RETURN_IF_ERROR(r.check("an object of numbers by arithmetic", names));
  for (int i = 0; i < planner::kNumPrecisions; ++i) {
    SHARDLAB_RETURN_IF_ERROR(r.read(std::string(names[static_cast<size_t>(i)]),
                                    out[static_cast<size_t>(i)], range, Null::kMeansAbsent));
  }
  return Status::ok();
}

Status read_parameters(const ObjectReader& root, CostCalibration& c) {
  const Json* v = root.find("parameters");
  if (v == nullptr)
    return root.missing("parameters", "an object with compute, bwd_multiplier and comm");
  const JsonPath path = root.path_of("parameters");
  ObjectReader p(*v, path);
  SHARDLAB_RETURN_IF_ERROR(p.check("a parameters object", internal::kProfileParametersKeys));
  if (const Json* compute = p.find("compute", Null::kMeansAbsent)) {
    SHARDLAB_RETURN_IF_ERROR(read_compute(*compute, p.path_of("compute"), c));
  }
  SHARDLAB_RETURN_IF_ERROR(
      p.read("bwd_multiplier", c.bwd_multiplier, kMultiplier, Null::kMeansAbsent));
  if (const Json* comm = p.find("comm", Null::kMeansAbsent)) {
    const JsonPath comm_path = p.path_of("comm");
    ObjectReader cr(*comm, comm_path);
    SHARDLAB_RETURN_IF_ERROR(cr.check("a comm object", internal::kProfileCommKeys));
    SHARDLAB_RETURN_IF_ERROR(read_comm_scope(cr, "intra_host", c.intra_host));
    SHARDLAB_RETURN_IF_ERROR(read_comm_scope(cr, "inter_host", c.inter_host));
  }
  if (const Json* dense = p.find("dense", Null::kMeansAbsent)) {
    ObjectReader dr(*dense, p.path_of("dense"));
    SHARDLAB_RETURN_IF_ERROR(dr.check("a dense object", internal::kProfileDenseKeys));
    SHARDLAB_RETURN_IF_ERROR(
        read_by_precision(dr, "gemm_efficiency", kEfficiency, c.gemm_efficiency));
    SHARDLAB_RETURN_IF_ERROR(read_by_precision(dr, "gemm_kernel_ms", kTimeMs, c.gemm_kernel_ms));
  }
  return Status::ok();
}

const IntValue kCount{.min = 0, .max = INT32_MAX};

Status read_group(const Json& v, const JsonPath& path, kernels::CalibrationGroup& g) {
  ObjectReader r(v, path);
  SHARDLAB_RETURN_IF_ERROR(r.check("a fit group object", internal::kProfileGroupKeys));
  int64_t count = 0, held = 0;
  SHARDLAB_RETURN_IF_ERROR(
      r.require("name", g.name, StringValue{.non_empty = true}, "a non-empty string"));
  SHARDLAB_RETURN_IF_ERROR(r.read("count", count, kCount));
  SHARDLAB_RETURN_IF_ERROR(r.read("held_out", held, kCount));
  SHARDLAB_RETURN_IF_ERROR(r.read("fitted", g.fitted, internal::BoolValue{}));
  SHARDLAB_RETURN_IF_ERROR(r.read("mape_before", g.mape_before, kNonNegative, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(r.read("mape_after", g.mape_after, kNonNegative, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(
      r.read("fit_mape_before", g.fit_mape_before, kNonNegative, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(
      r.read("fit_mape_after", g.fit_mape_after, kNonNegative, Null::kMeansAbsent));
  g.fit_count = static_cast<int>(count);
  g.held_out = static_cast<int>(held);
  return Status::ok();
}

Status read_fit(const ObjectReader& root, CalibrationProfile& p) {
  const Json* v = root.find("fit", Null::kMeansAbsent);
  if (v == nullptr) return Status::ok();
  const JsonPath path = root.path_of("fit");
  ObjectReader f(*v, path);
  SHARDLAB_RETURN_IF_ERROR(f.check("a fit object", internal::kProfileFitKeys));
  int64_t count = 0, held = 0;
  SHARDLAB_RETURN_IF_ERROR(f.read("count", count, kCount));
  SHARDLAB_RETURN_IF_ERROR(f.read("held_out", held, kCount));
  p.fit_count = static_cast<int>(count);
  p.held_out = static_cast<int>(held);
  SHARDLAB_RETURN_IF_ERROR(f.read("mape_before", p.mape_before, kNonNegative, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(f.read("mape_after", p.mape_after, kNonNegative, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(
      f.read("fit_mape_before", p.fit_mape_before, kNonNegative, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(
      f.read("fit_mape_after", p.fit_mape_after, kNonNegative, Null::kMeansAbsent));
  if (const Json* groups = f.find("groups", Null::kMeansAbsent)) {
    const JsonPath groups_path = f.path_of("groups");
    if (!groups->is_array()) return invalid_at(groups_path, "must be a list of fit groups", groups);
    for (std::size_t i = 0; i < groups->size(); ++i) {
      kernels::CalibrationGroup g;
      SHARDLAB_RETURN_IF_ERROR(read_group((*groups)[i], groups_path.at(i), g));
      p.groups.push_back(std::move(g));
    }
  }
  SHARDLAB_RETURN_IF_ERROR(
      f.read("notes", p.notes, internal::ListOf{StringValue{}, false}, Null::kMeansAbsent));
  return Status::ok();
}

Result<CalibrationProfile> read_profile(const Json& doc) {
  const JsonPath root_path;
  ObjectReader root(doc, root_path);
  SHARDLAB_RETURN_IF_ERROR(root.check("a calibration profile object", internal::kProfileKeys));
  std::string format;
  SHARDLAB_RETURN_IF_ERROR(
      root.require("format", format, StringValue{}, "\"shardlab-calibration\""));
  if (format != kFormat) {
    return invalid_at(root.path_of("format"), "not a calibration profile", root.find("format"),
                      "\"shardlab-calibration\"");
  }
  int64_t version = 0;
  SHARDLAB_RETURN_IF_ERROR(root.require("version", version, IntValue{}, "1"));
  if (version != kCalibrationFormatVersion) {
    return invalid_at(root.path_of("version"), "unsupported profile version", root.find("version"),
                      std::to_string(kCalibrationFormatVersion));
  }
  CalibrationProfile p;
  SHARDLAB_RETURN_IF_ERROR(
      root.require("name", p.name, StringValue{.non_empty = true}, "a non-empty string"));
  SHARDLAB_RETURN_IF_ERROR(root.read("created", p.created, StringValue{}, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(root.read("device", p.device, StringValue{}, Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(root.read("source_runs", p.source_runs,
                                     internal::ListOf{IntValue{.min = 1}, false},
                                     Null::kMeansAbsent));
  SHARDLAB_RETURN_IF_ERROR(read_parameters(root, p.parameters));
  SHARDLAB_RETURN_IF_ERROR(read_fit(root, p));
  return p;
}

}  // namespace

CalibrationProfile make_profile(const kernels::CalibrationFit& fit, std::string name,
                                std::string created, std::string device,
                                std::vector<int64_t> source_runs) {
  CalibrationProfile p;
  p.name = std::move(name);
  p.created = std::move(created);
  p.device = std::move(device);
  p.source_runs = std::move(source_runs);
  p.parameters = fit.calibration;
  p.fit_count = fit.fit_count;
  p.held_out = fit.held_out_count;
  p.mape_before = fit.mape_before;
  p.mape_after = fit.mape_after;
  p.fit_mape_before = fit.fit_mape_before;
  p.fit_mape_after = fit.fit_mape_after;
  p.groups = fit.groups;
  p.notes = fit.notes;
  return p;
}

std::string calibration_to_json(const CalibrationProfile& p, int indent) {
  JsonWriter w(indent);
  w.begin_object();
  w.member("format", kFormat);
  w.member("version", kCalibrationFormatVersion);
  w.member("name", p.name);
  w.member("created", p.created);
  w.member("device", p.device);
  w.key("source_runs");
  w.begin_array();
  for (int64_t id : p.source_runs) w.value(id);
  w.end_array();
  write_parameters(w, p.parameters);
  write_fit(w, p);
  w.end_object();
  return std::move(w).take();
}

Result<CalibrationProfile> parse_calibration(const std::string& text, const std::string& origin) {
  return internal::read_document(text, origin, nullptr, "profile", read_profile);
}

Result<CalibrationProfile> load_calibration_file(const std::string& path) {
  auto text = read_input_file(path, "calibration profile", kMaxProfileBytes);
  if (!text) return text.status();
  return parse_calibration(*text, path);
}

}  // namespace shardlab::data
