#include "stats_format.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace shardlab::planner::stats_format {

std::string one_sig(double x) {
  // Python's "g" format follows C's %g (same exponent threshold, at least two
  // exponent digits, ties to even on the exact binary value), so C's printf
  // reproduces f'{float(f"{x:.1g}"):g}' step by step.
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1g", x);
  const double back = std::strtod(buf, nullptr);
  std::snprintf(buf, sizeof(buf), "%g", back);
  return buf;
}

std::string pct0(double x) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%.0f%%", x * 100.0);
  return buf;
}

std::string int_str(int64_t v) { return std::to_string(v); }

std::string fixed(double x, int decimals) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, x);
  return buf;
}

std::vector<std::string> collapse_ranks(const std::vector<int>& ranks) {
  std::vector<std::string> out;
  bool consecutive = ranks.size() > 1;
  for (size_t i = 1; consecutive && i < ranks.size(); ++i) {
    consecutive = ranks[i] == ranks[0] + static_cast<int>(i);
  }
  if (consecutive) {
    out.push_back(std::to_string(ranks.front()) + "-" + std::to_string(ranks.back()));
    return out;
  }
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(std::to_string(r));
  return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string reduce_int_list(const std::vector<int64_t>& values) {
  if (values.empty()) return "";
  std::vector<std::string> runs;
  int64_t prev = values[0];
  int64_t count = 1;
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i] == prev) {
      ++count;
      continue;
    }
    runs.push_back(count > 1 ? int_str(prev) + " * " + int_str(count) : int_str(prev));
    prev = values[i];
    count = 1;
  }
  // The last run is written without spaces around "*" (ODD-29).
  runs.push_back(count > 1 ? int_str(prev) + "*" + int_str(count) : int_str(prev));
  return join(runs, ", ");
}

std::vector<std::string> format_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (size_t& w : widths) w += 3;
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line.append(widths[c] - row[c].size(), ' ');
      line += row[c];
    }
    out.push_back(std::move(line));
  }
  return out;
}

std::string center(const std::string& s, int width) {
  const int len = static_cast<int>(s.size());
  if (len >= width) return s;
  const int left = (width - len) / 2;
  const int right = width - len - left;
  return std::string(static_cast<size_t>(left), ' ') + s + std::string(static_cast<size_t>(right), ' ');
}

std::string ljust(const std::string& s, int width) {
  const int len = static_cast<int>(s.size());
  if (len >= width) return s;
  return s + std::string(static_cast<size_t>(width - len), ' ');
}

}  // namespace shardlab::planner::stats_format
