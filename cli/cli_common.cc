#include "cli_common.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"

namespace shardlab::cli {

int exit_status(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidScenario:
    case StatusCode::kIo: return kExitInvalid;
    case StatusCode::kPlanner: return kExitPlanner;
    case StatusCode::kInternal: return kExitInternal;
  }
  return kExitInternal;
}

void print_error(const std::string& message) {
  std::cerr << "shardlab: error: " << message << '\n';
}

void print_warning(const std::string& message) {
  std::cerr << "shardlab: warning: " << message << '\n';
}

Status write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << '\n';
    std::cout.flush();
    return std::cout ? Status::ok() : Status::io_error("cannot write to stdout");
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::io_error(tmp + ": cannot open for writing");
    out << text << '\n';
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return Status::io_error(tmp + ": write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    return Status::io_error(path + ": cannot write (" + ec.message() + ")");
  }
  return Status::ok();
}

std::string scenario_name_from_path(const std::string& path) {
  const std::string stem = std::filesystem::path(path).stem().string();
  return stem.empty() ? path : stem;
}

std::optional<planner::Scenario> load_scenario_or_report(const std::string& path,
                                                         const std::string& error_out,
                                                         int* exit_code,
                                                         const std::string& torchrec_version) {
  Result<planner::Scenario> loaded = data::load_scenario_file(path);
  if (loaded.is_ok()) {
    planner::Scenario scenario = std::move(loaded).value();
    if (!torchrec_version.empty()) {
      // The option's check accepts known names only.
      scenario.planner.torchrec_version =
          planner::parse_torchrec_version(torchrec_version).value_or(planner::kLatestTorchRecVersion);
    }
    return scenario;
  }
  Status status = loaded.status();
  // Reading the scenario is input, whatever the cause: exit 2, invalid_scenario.
  if (status.code() != StatusCode::kInvalidScenario) {
    std::string msg = status.message();
    if (msg.find(path) == std::string::npos) msg = path + ": " + msg;
    status = Status::invalid_scenario(msg);
  }
  print_error(status.message());
  *exit_code = kExitInvalid;
  if (!error_out.empty()) {
    const std::string json = data::error_to_json(scenario_name_from_path(path), status, nullptr);
    if (Status w = write_output(error_out, json); !w.is_ok()) print_error(w.message());
  }
  return std::nullopt;
}

void add_torchrec_version_option(CLI::App* cmd, std::string* version) {
  std::vector<std::string> names;
  for (planner::TorchRecVersion v : planner::all_torchrec_versions()) names.emplace_back(planner::to_string(v));
  cmd->add_option("--torchrec-version", *version,
                  "Which TorchRec planner to reproduce: 2024-02 (commit fe1c2824) or 2026-08 (commit "
                  "376cac6a); see docs/torchrec-versions.md (default: the scenario's "
                  "planner.torchrec_version, else 2026-08)")
      ->check(CLI::IsMember(names))
      ->type_name("VERSION");
}

std::string example_footer(const std::string& lines) { return "\nExample:\n" + lines; }

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (!(std::fabs(bytes) >= 1024.0)) return fmt::format("{:.0f} B", bytes);
  size_t unit = 0;
  while (std::fabs(bytes) >= 1024.0 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.2f} {}", bytes, kUnits[unit]);
}

}  // namespace shardlab::cli
