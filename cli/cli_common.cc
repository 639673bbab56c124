#include "cli_common.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <system_error>

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

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

void print_error(const std::string& message) {
  std::cerr << "shardlab: error: " << printable(message) << '\n';
}

void print_warning(const std::string& message) {
  std::cerr << "shardlab: warning: " << printable(message) << '\n';
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
                                                         int* exit_code) {
  Result<planner::Scenario> loaded = data::load_scenario_file(path);
  if (loaded.is_ok()) return std::move(loaded).value();
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

Result<std::vector<int64_t>> parse_id_list(const std::string& text, const IdListSpec& spec) {
  constexpr int64_t kMaxListed = 1000000;
  std::vector<int64_t> ids;
  const auto number = [&](std::string_view s, int64_t* out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size() && *out >= spec.minimum;
  };
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    const size_t dash = part.find('-');
    int64_t first = 0;
    int64_t last = 0;
    if (dash == std::string_view::npos
            ? !number(part, &first) || !number(part, &last)
            : !number(part.substr(0, dash), &first) || !number(part.substr(dash + 1), &last) ||
                  last < first) {
      return Status::invalid_scenario(
          fmt::format("{}: '{}' is not a {} >= {} or a range FIRST-LAST (e.g. {} 3,5-7)",
                      spec.option, part, spec.what, spec.minimum, spec.option));
    }
    if (last > spec.maximum) {
      return Status::invalid_scenario(fmt::format("{}: {} {} is not in {}..{}", spec.option,
                                                  spec.what, last, spec.minimum, spec.maximum));
    }
    if (last - first >= kMaxListed - static_cast<int64_t>(ids.size())) {
      return Status::invalid_scenario(fmt::format("{}: names more than {} {}s (at '{}')",
                                                  spec.option, kMaxListed, spec.what, part));
    }
    for (int64_t id = first; id <= last; ++id) ids.push_back(id);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

CLI::Validator at_least(double minimum) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) ||
            value < minimum) {
          return fmt::format("must be a number >= {}: got '{}'", minimum, text);
        }
        return "";
      },
      fmt::format("NUMBER >= {}", minimum));
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
