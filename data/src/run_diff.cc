// The difference between two stored runs, and its text and JSON forms.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "run_export_internal.h"
#include "run_store_internal.h"
#include "shardlab/data/run_export.h"

namespace shardlab::data {
namespace {

using Json = nlohmann::ordered_json;

bool differ(double a, double b) {
  return std::fabs(a - b) > 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

std::string json_text(const Json& v) {
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void add_metadata(RunDiff* d, const char* name, const std::string& a, const std::string& b) {
  if (a != b)
    d->fields.push_back(
        FieldDiff{.name = name, .a = json_text(a), .b = json_text(b), .delta = std::nullopt});
}

void add_summary_fields(RunDiff* d, const std::string& a_text, const std::string& b_text) {
  Json a = internal::embedded_json(a_text);
  Json b = internal::embedded_json(b_text);
  if (!a.is_object()) a = Json::object();
  if (!b.is_object()) b = Json::object();
  std::vector<std::string> names;
  for (const auto& [k, v] : a.items()) names.push_back(k);
  for (const auto& [k, v] : b.items()) {
    if (!a.contains(k)) names.push_back(k);
  }
  for (const std::string& k : names) {
    FieldDiff f{.name = k};
    if (a.contains(k)) f.a = json_text(a[k]);
    if (b.contains(k)) f.b = json_text(b[k]);
    if (a.contains(k) && b.contains(k) && a[k].is_number() && b[k].is_number()) {
      f.delta = b[k].get<double>() - a[k].get<double>();
    }
    d->fields.push_back(std::move(f));
  }
}

// One table's placement: "table_wise/fused on ranks 0,1" (ranks in shard order).
std::map<std::string, std::string> placements(const std::vector<EstimateRow>& rows,
                                              std::vector<std::string>* order) {
  std::map<std::string, std::string> kinds;
  std::map<std::string, std::vector<int>> ranks;
  for (const EstimateRow& r : rows) {
    if (!kinds.count(r.fqn)) {
      kinds[r.fqn] = fmt::format("{}/{}", planner::to_string(r.sharding_type),
                                 planner::to_string(r.compute_kernel));
      order->push_back(r.fqn);
    }
    ranks[r.fqn].push_back(r.rank);
  }
  std::map<std::string, std::string> out;
  for (const auto& [fqn, kind] : kinds) {
    out[fqn] = fmt::format("{} on rank{} {}", kind, ranks[fqn].size() == 1 ? "" : "s",
                           fmt::join(ranks[fqn], ","));
  }
  return out;
}

void add_placements(RunDiff* d, const StoredRun& a, const StoredRun& b) {
  std::vector<std::string> a_order, b_order;
  const auto pa = placements(a.estimates, &a_order);
  const auto pb = placements(b.estimates, &b_order);
  for (const std::string& fqn : a_order) {
    auto it = pb.find(fqn);
    const std::string other = it == pb.end() ? std::string() : it->second;
    if (other != pa.at(fqn)) d->placements.push_back({fqn, pa.at(fqn), other});
  }
  for (const std::string& fqn : b_order) {
    if (!pa.count(fqn)) d->placements.push_back({fqn, std::string(), pb.at(fqn)});
  }
}

void add_rank_totals(RunDiff* d, const StoredRun& a, const StoredRun& b) {
  std::map<int, std::pair<double, double>> perf;
  std::map<int, std::pair<double, double>> hbm;
  for (const EstimateRow& r : a.estimates) {
    perf[r.rank].first += r.total_ms();
    hbm[r.rank].first += static_cast<double>(r.hbm_bytes);
  }
  for (const EstimateRow& r : b.estimates) {
    perf[r.rank].second += r.total_ms();
    hbm[r.rank].second += static_cast<double>(r.hbm_bytes);
  }
  const auto name = [](int rank) {
    return rank < 0 ? std::string("unplaced") : fmt::format("rank {}", rank);
  };
  for (const auto& [rank, v] : perf) {
    if (differ(v.first, v.second))
      d->rank_perf_ms.push_back({name(rank), v.first, v.second, v.second - v.first});
  }
  for (const auto& [rank, v] : hbm) {
    if (v.first != v.second)
      d->rank_hbm_bytes.push_back({name(rank), v.first, v.second, v.second - v.first});
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Per phase, the median over ranks of each rank's time in it (RunDiff says
// how a rank's time is summed). Sets *source.
std::map<sim::Phase, double> phase_medians(const StoredRun& run, std::string* source) {
  std::map<sim::Phase, std::map<int, double>> per_rank;
  if (!run.measurements.empty()) {
    *source = "measured";
    for (const kernels::Measurement& m : run.measurements)
      per_rank[m.phase][m.rank] += m.timing.median_ms;
  } else if (!run.sim_phases.empty()) {
    *source = "simulated";
    for (const SimPhaseRow& p : run.sim_phases) per_rank[p.phase][p.rank] += p.end_ms - p.start_ms;
  } else {
    source->clear();
  }
  std::map<sim::Phase, double> out;
  for (const auto& [phase, ranks] : per_rank) {
    std::vector<double> times;
    for (const auto& [rank, t] : ranks) times.push_back(t);
    out[phase] = median(std::move(times));
  }
  return out;
}

void add_phase_medians(RunDiff* d, const StoredRun& a, const StoredRun& b) {
  const auto ma = phase_medians(a, &d->a_phase_source);
  const auto mb = phase_medians(b, &d->b_phase_source);
  for (sim::Phase p : internal::all_phases()) {
    auto ia = ma.find(p);
    auto ib = mb.find(p);
    if (ia == ma.end() || ib == mb.end()) continue;
    d->phase_median_ms.push_back(
        {std::string(sim::to_string(p)), ia->second, ib->second, ib->second - ia->second});
  }
}

// A field value as people read it: strings without quotes, fractional
// numbers to 6 significant digits (diff_to_json keeps them all), the rest as
// JSON, "-" when absent.
std::string opt_text(const std::optional<std::string>& s) {
  if (!s) return "-";
  const Json v = internal::embedded_json(*s);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  return *s;
}

// Rows of a NumberDiff list under a heading, numbers with `precision` digits.
void append_numbers(std::string* out, const std::string& heading,
                    const std::vector<NumberDiff>& rows, bool integral) {
  if (rows.empty()) return;
  *out += heading + "\n";
  size_t w = 4;
  for (const NumberDiff& r : rows) w = std::max(w, r.name.size());
  *out += fmt::format("  {:<{}}  {:>16}  {:>16}  {:>16}\n", "", w, "a", "b", "b - a");
  for (const NumberDiff& r : rows) {
    if (integral) {
      *out +=
          fmt::format("  {:<{}}  {:>16.0f}  {:>16.0f}  {:>+16.0f}\n", r.name, w, r.a, r.b, r.delta);
    } else {
      *out +=
          fmt::format("  {:<{}}  {:>16.6g}  {:>16.6g}  {:>+16.6g}\n", r.name, w, r.a, r.b, r.delta);
    }
  }
}

Json numbers_json(const std::vector<NumberDiff>& rows) {
  Json j = Json::array();
  for (const NumberDiff& r : rows)
    j.push_back(Json{{"name", r.name}, {"a", r.a}, {"b", r.b}, {"delta", r.delta}});
  return j;
}

}  // namespace

RunDiff diff_runs(const StoredRun& a, const StoredRun& b) {
  RunDiff d;
  d.a_id = a.summary.id;
  d.b_id = b.summary.id;
  add_metadata(&d, "kind", std::string(to_string(a.summary.kind)),
               std::string(to_string(b.summary.kind)));
  add_metadata(&d, "scenario_name", a.summary.scenario_name, b.summary.scenario_name);
  add_metadata(&d, "scenario_hash", a.summary.scenario_hash, b.summary.scenario_hash);
  add_metadata(&d, "device", a.summary.device, b.summary.device);
  add_metadata(&d, "backend", a.summary.backend, b.summary.backend);
  add_metadata(&d, "host", a.summary.host, b.summary.host);
  add_metadata(&d, "shardlab_version", a.summary.shardlab_version, b.summary.shardlab_version);
  add_metadata(&d, "torchrec_version", a.summary.torchrec_version, b.summary.torchrec_version);
  add_summary_fields(&d, a.summary.summary_json, b.summary.summary_json);
  if (!a.estimates.empty() && !b.estimates.empty()) {
    add_placements(&d, a, b);
    add_rank_totals(&d, a, b);
  }
  add_phase_medians(&d, a, b);
  return d;
}

std::string diff_to_text(const RunDiff& d) {
  std::string out = fmt::format("runs {} (a) and {} (b)\n", d.a_id, d.b_id);
  const bool any = !d.fields.empty() || !d.placements.empty() || !d.rank_perf_ms.empty() ||
                   !d.rank_hbm_bytes.empty() || !d.phase_median_ms.empty();
  if (!any) return fmt::format("runs {} and {}: no differences", d.a_id, d.b_id);
  if (!d.fields.empty()) {
    size_t w = 5, wa = 1, wb = 1;
    for (const FieldDiff& f : d.fields) {
      w = std::max(w, f.name.size());
      wa = std::max(wa, std::min<size_t>(opt_text(f.a).size(), 40));
      wb = std::max(wb, std::min<size_t>(opt_text(f.b).size(), 40));
    }
    out += "fields:\n";
    out += fmt::format("  {:<{}}  {:<{}}  {:<{}}  {}\n", "field", w, "a", wa, "b", wb, "b - a");
    for (const FieldDiff& f : d.fields) {
      const std::string delta = f.delta ? fmt::format("{:+.6g}", *f.delta) : std::string();
      out += fmt::format("  {:<{}}  {:<{}}  {:<{}}  {}\n", f.name, w, opt_text(f.a), wa,
                         opt_text(f.b), wb, delta);
    }
  }
  if (!d.placements.empty()) {
    out += fmt::format("placement differs for {} table{}:\n", d.placements.size(),
                       d.placements.size() == 1 ? "" : "s");
    for (const PlacementDiff& p : d.placements) {
      out += fmt::format("  {}\n    a: {}\n    b: {}\n", p.fqn, p.a.empty() ? "(absent)" : p.a,
                         p.b.empty() ? "(absent)" : p.b);
    }
  }
  append_numbers(&out, "estimated perf per rank (ms), ranks that differ:", d.rank_perf_ms, false);
  append_numbers(&out, "HBM per rank (bytes), ranks that differ:", d.rank_hbm_bytes, true);
  append_numbers(&out,
                 fmt::format("phase time, median over ranks (ms; a {}, b {}):", d.a_phase_source,
                             d.b_phase_source),
                 d.phase_median_ms, false);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string diff_to_json(const RunDiff& d, int indent) {
  Json j = Json::object();
  j["a"] = d.a_id;
  j["b"] = d.b_id;
  Json& fields = j["fields"] = Json::array();
  for (const FieldDiff& f : d.fields) {
    Json o = Json::object();
    o["name"] = f.name;
    o["a"] = f.a ? internal::embedded_json(*f.a) : Json(nullptr);
    o["b"] = f.b ? internal::embedded_json(*f.b) : Json(nullptr);
    o["delta"] = f.delta ? Json(*f.delta) : Json(nullptr);
    fields.push_back(std::move(o));
  }
  Json& placements = j["placements"] = Json::array();
  for (const PlacementDiff& p : d.placements) {
    placements.push_back(Json{{"fqn", p.fqn},
                              {"a", p.a.empty() ? Json(nullptr) : Json(p.a)},
                              {"b", p.b.empty() ? Json(nullptr) : Json(p.b)}});
  }
  j["rank_perf_ms"] = numbers_json(d.rank_perf_ms);
  j["rank_hbm_bytes"] = numbers_json(d.rank_hbm_bytes);
  j["phase_median_ms"] = numbers_json(d.phase_median_ms);
  j["phase_source"] = Json{{"a", d.a_phase_source}, {"b", d.b_phase_source}};
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace shardlab::data
