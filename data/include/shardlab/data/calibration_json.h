// Calibration profiles as JSON (docs/calibration.md "Profile format"): the
// fitted cost-model parameters (planner/cost_calibration.h) with where they
// came from and how well they fit.
//
//   {"format": "shardlab-calibration", "version": 1,
//    "name", "created", "device", "source_runs": [run ids],
//    "parameters": {
//      "compute": [{"kernel", "dim_class", "bandwidth_bytes_per_ms", "overhead_ms",
//                   "bwd_multiplier"}],
//      "bwd_multiplier",
//      "comm": {"intra_host": {"bandwidth_bytes_per_ms", "latency_ms"},
//               "inter_host": {...}}},
//    "fit": {"count", "held_out", "mape_before", "mape_after", "fit_mape_before", "fit_mape_after",
//            "groups": [{"name", "count", "held_out", "fitted", "mape_before", "mape_after",
//                        "fit_mape_before", "fit_mape_after"}],
//            "notes": [strings]}}
//
// A compute entry holds one (kernel, dim class) bandwidth and the kernel's
// overhead and backward multiplier (repeated in each of the kernel's entries);
// an entry without "dim_class" holds only those two. "bwd_multiplier" under
// "parameters" applies to kernels without their own. Parameters left out (or
// null) keep TorchRec's value. Units: bytes/ms and ms;
// MAPEs in percent (mape_*: on the held-out records; fit_mape_*: on the fit's
// own), null when there was nothing to measure them on. "fit" is
// optional when reading (a hand-written profile has none).
//
// Reading validates every field: errors are kInvalidArgument, one line,
// "<file>: <json path>: <what is wrong>: got <value>, expected <what>", or
// io_error when the file cannot be read. Nothing here throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/kernels/calibration.h"
#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/status.h"

namespace shardlab::data {

inline constexpr int kCalibrationFormatVersion = 1;

struct CalibrationProfile {
  std::string name;                  // non-empty
  std::string created;               // ISO 8601 UTC, e.g. "2025-01-31T12:00:00Z"
  std::string device;                // what the measurements ran on, e.g. "cpu: AMD EPYC 7B13"
  std::vector<int64_t> source_runs;  // run-store ids of the measured runs, >= 1
  planner::CostCalibration parameters;
  // The fit's summary (kernels::CalibrationFit without the parameters).
  int fit_count = 0;
  int held_out = 0;
  std::optional<double> mape_before;
  std::optional<double> mape_after;
  std::optional<double> fit_mape_before;
  std::optional<double> fit_mape_after;
  std::vector<kernels::CalibrationGroup> groups;
  std::vector<std::string> notes;
};

// The profile of a fit: parameters, counts, errors, groups and notes.
CalibrationProfile make_profile(const kernels::CalibrationFit& fit, std::string name,
                                std::string created, std::string device,
                                std::vector<int64_t> source_runs);

// The profile document, without a trailing newline. `indent` spaces per level,
// or < 0 for one line. Doubles in their shortest round-trip form.
std::string calibration_to_json(const CalibrationProfile& profile, int indent = 2);

// Parses and validates `text`; `origin` names the source in error messages.
Result<CalibrationProfile> parse_calibration(const std::string& text, const std::string& origin);

// Reads and validates the profile at `path`.
Result<CalibrationProfile> load_calibration_file(const std::string& path);

}  // namespace shardlab::data
