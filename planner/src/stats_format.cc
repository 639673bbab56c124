#include "stats_format.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

std::string general3(double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3g", x);
  return buf;
}

std::string py_int_list(const std::vector<int>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

double exact_mean(const std::vector<double>& values) {
  // Each value is m * 2^e with an integer m < 2^53. Scaled to the smallest e,
  // the values sum exactly in 128 bits unless their magnitudes span more than
  // about 60 binary orders (never for per-rank perf totals); then a long
  // double sum is the fallback.
  __extension__ using u128 = unsigned __int128;
  const auto n = static_cast<int64_t>(values.size());
  int min_exp = 0;
  int max_exp = 0;
  bool any = false;
  for (double v : values) {
    if (v == 0.0) continue;
    int e = 0;
    std::frexp(v, &e);
    const int low = e - 53;
    min_exp = any ? std::min(min_exp, low) : low;
    max_exp = any ? std::max(max_exp, e) : e;
    any = true;
  }
  if (!any) return 0.0;
  int count_bits = 0;
  while ((int64_t{1} << count_bits) < n) ++count_bits;
  if (max_exp - min_exp + count_bits > 120) {
    long double sum = 0;
    for (double v : values) sum += v;
    return static_cast<double>(sum / n);
  }
  u128 sum = 0;
  for (double v : values) {
    if (v == 0.0) continue;
    int e = 0;
    const double m = std::frexp(v, &e);
    const auto mant = static_cast<uint64_t>(std::ldexp(m, 53));
    sum += static_cast<u128>(mant) << (e - 53 - min_exp);
  }
  auto bit_length = [](u128 x) {
    int b = 0;
    while (x != 0) {
      x >>= 1;
      ++b;
    }
    return b;
  };
  // Shift so the quotient has at least 55 bits, then round it to 53 bits
  // (guard bits from the quotient, sticky from the remainder).
  int shift = 55 + count_bits + 1 - bit_length(sum);
  if (shift < 0) shift = 0;
  if (bit_length(sum) + shift > 127) shift = 127 - bit_length(sum);
  const u128 scaled = sum << shift;
  const u128 q = scaled / static_cast<u128>(n);
  const bool sticky = scaled % static_cast<u128>(n) != 0;
  const int drop = std::max(0, bit_length(q) - 53);
  u128 mant = q >> drop;
  if (drop > 0) {
    const u128 rest = q & ((u128{1} << drop) - 1);
    const u128 half = u128{1} << (drop - 1);
    if (rest > half || (rest == half && (sticky || (mant & 1) != 0))) ++mant;
  }
  return std::ldexp(static_cast<double>(static_cast<uint64_t>(mant)), min_exp - shift + drop);
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
  // The last run is written without spaces around "*" (docs/cost-model.md O29).
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
  return std::string(static_cast<size_t>(left), ' ') + s +
         std::string(static_cast<size_t>(right), ' ');
}

std::string ljust(const std::string& s, int width) {
  const int len = static_cast<int>(s.size());
  if (len >= width) return s;
  return s + std::string(static_cast<size_t>(width - len), ' ');
}

}  // namespace shardlab::planner::stats_format
