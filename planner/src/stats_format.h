// Text helpers of TorchRec's EmbeddingStats printout (docs/cost-model.md §10.1,
// §10.5). Internal to the planner library; the stats table is the only user.
//
// Numbers print exactly as Python prints them: str(round(x, k)) is
// py_round() of shardlab/planner/py_format.h; the helpers here add the
// remaining Python format specs the table uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardlab::planner::stats_format {

// f'{float(f"{x:.1g}"):g}': one significant digit, then %g
// (0.0019171 -> "0.002", 0.000096 -> "0.0001", 0.0000096 -> "1e-05", 0 -> "0").
std::string one_sig(double x);

// f"{x:.0%}": x * 100 (a double product) with no decimals, ties to even, then "%".
std::string pct0(double x);

// Python str(int).
std::string int_str(int64_t v);

// f"{x:.2f}" (used for the run time).
std::string fixed(double x, int decimals);

// f"{x:.3g}": three significant digits, as C's %.3g.
std::string general3(double x);

// Python str() of a list of ints: "[0, 5, 7]", "[]".
std::string py_int_list(const std::vector<int>& values);

// statistics.mean() of floats: the exact mean of `values`, rounded once to
// the nearest double (ties to even). REQUIRES: finite, non-negative values,
// at least one.
double exact_mean(const std::vector<double>& values);

// TorchRec's rank-list shortening: more than one rank forming a consecutive
// ascending range gives {"a-b"}; anything else gives each rank as a string
// (duplicates kept: {0, 0, 1} -> "0", "0", "1").
// REQUIRES: `ranks` sorted ascending.
std::vector<std::string> collapse_ranks(const std::vector<int>& ranks);

// `parts` joined by `sep`.
std::string join(const std::vector<std::string>& parts, const std::string& sep);

// TorchRec's batch-size summary: runs of equal values as "v * k" except the
// last run, written "v*k" (docs/cost-model.md O29); single values as "v"; joined by ", ".
std::string reduce_int_list(const std::vector<int64_t>& values);

// Every column right-aligned to (longest cell + 3), cells concatenated.
// All rows must have the same number of cells.
std::vector<std::string> format_table(const std::vector<std::vector<std::string>>& rows);

// f"{s: ^{width}}": centred, the odd space on the right; never truncates.
std::string center(const std::string& s, int width);

// f"{s: <{width}}": left-justified; never truncates.
std::string ljust(const std::string& s, int width);

}  // namespace shardlab::planner::stats_format
