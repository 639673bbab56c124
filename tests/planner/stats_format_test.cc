// Number and layout helpers of the stats printout (docs/cost-model.md §10.1,
// §10.5). Expected strings were printed by CPython 3 for the same inputs.

#include "../../planner/src/stats_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "py_format.h"

namespace shardlab::planner {
namespace {

using namespace stats_format;  // NOLINT: test of this namespace

TEST(StatsFormat, OneSignificantDigit) {
  EXPECT_EQ(one_sig(0.0019171), "0.002");
  EXPECT_EQ(one_sig(0.000096), "0.0001");
  EXPECT_EQ(one_sig(0.0000096), "1e-05");
  EXPECT_EQ(one_sig(0.00005), "5e-05");
  EXPECT_EQ(one_sig(0.0), "0");
  EXPECT_EQ(one_sig(0.96), "1");
  EXPECT_EQ(one_sig(12.5), "10");
  // Ties are decided on the exact binary value: 0.25 is a true tie (to even),
  // 0.15 and 0.35 lie below, 0.45 above.
  EXPECT_EQ(one_sig(0.25), "0.2");
  EXPECT_EQ(one_sig(0.15), "0.1");
  EXPECT_EQ(one_sig(0.35), "0.3");
  EXPECT_EQ(one_sig(0.45), "0.5");
}

TEST(StatsFormat, PythonRound) {
  EXPECT_EQ(py_round(0.0019171, 3), "0.002");
  EXPECT_EQ(py_round(0.00049, 3), "0.0");
  EXPECT_EQ(py_round(0.0, 3), "0.0");
  EXPECT_EQ(py_round(12.0, 3), "12.0");
  EXPECT_EQ(py_round(12.0, 1), "12.0");
  EXPECT_EQ(py_round(4.6934, 1), "4.7");
  EXPECT_EQ(py_round(123456.789, 1), "123456.8");
  // Exact binary ties go to even; near-ties follow the binary value.
  EXPECT_EQ(py_round(0.0625, 3), "0.062");
  EXPECT_EQ(py_round(0.1875, 3), "0.188");
  EXPECT_EQ(py_round(0.125, 2), "0.12");
  EXPECT_EQ(py_round(0.375, 2), "0.38");
  EXPECT_EQ(py_round(2.675, 2), "2.67");
  EXPECT_EQ(py_round(0.0005, 3), "0.001");
  EXPECT_EQ(py_round(0.0015, 3), "0.002");
  // The rounded double prints in its shortest form, not with k decimals.
  EXPECT_EQ(py_round(1234567890123.4567, 3), "1234567890123.457");
  EXPECT_EQ(py_round(1e15 + 0.3, 3), "1000000000000000.2");
  EXPECT_EQ(py_round(9007199254740992.0, 3), "9007199254740992.0");
  EXPECT_EQ(py_round(9999999999999999.0, 1), "1e+16");
  EXPECT_EQ(py_round(1e16, 3), "1e+16");
  EXPECT_EQ(py_round(-0.0001, 3), "-0.0");
}

TEST(StatsFormat, PythonFloatRepr) {
  EXPECT_EQ(py_float_repr(0.3), "0.3");
  EXPECT_EQ(py_float_repr(0.15), "0.15");
  EXPECT_EQ(py_float_repr(1.0), "1.0");
  EXPECT_EQ(py_float_repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(py_float_repr(0.0001), "0.0001");
  EXPECT_EQ(py_float_repr(1e-05), "1e-05");
  EXPECT_EQ(py_float_repr(1.5e-7), "1.5e-07");
  EXPECT_EQ(py_float_repr(5e-324), "5e-324");
  EXPECT_EQ(py_float_repr(123.456), "123.456");
  EXPECT_EQ(py_float_repr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(py_float_repr(1e16), "1e+16");
  EXPECT_EQ(py_float_repr(1e22), "1e+22");
}

TEST(StatsFormat, Percent) {
  EXPECT_EQ(pct0(0.17), "17%");
  EXPECT_EQ(pct0(0.85), "85%");
  EXPECT_EQ(pct0(0.125), "12%");  // 12.5: tie to even
  EXPECT_EQ(pct0(0.175), "18%");
  EXPECT_EQ(pct0(0.005), "0%");
  EXPECT_EQ(pct0(0.015), "2%");
  EXPECT_EQ(pct0(0.0), "0%");
  EXPECT_EQ(pct0(1.0), "100%");
}

TEST(StatsFormat, FixedAndInt) {
  EXPECT_EQ(fixed(0.18, 2), "0.18");
  EXPECT_EQ(fixed(0.004999, 2), "0.00");
  EXPECT_EQ(fixed(12.345, 2), "12.35");  // 12.3450000000000006
  EXPECT_EQ(int_str(0), "0");
  EXPECT_EQ(int_str(10131227), "10131227");
}

TEST(StatsFormat, CollapseRanks) {
  using V = std::vector<std::string>;
  EXPECT_EQ(collapse_ranks({}), V{});
  EXPECT_EQ(collapse_ranks({3}), V{"3"});
  EXPECT_EQ(collapse_ranks({0, 1, 2, 3}), V{"0-3"});
  EXPECT_EQ(collapse_ranks({1, 2}), V{"1-2"});
  EXPECT_EQ(collapse_ranks({0, 0}), (V{"0", "0"}));
  EXPECT_EQ(collapse_ranks({0, 0, 1}), (V{"0", "0", "1"}));
  EXPECT_EQ(collapse_ranks({0, 2}), (V{"0", "2"}));
  EXPECT_EQ(join(collapse_ranks({0, 0, 0, 0}), ","), "0,0,0,0");
}

TEST(StatsFormat, ReduceIntList) {
  EXPECT_EQ(reduce_int_list({}), "");
  EXPECT_EQ(reduce_int_list({4096}), "4096");
  EXPECT_EQ(reduce_int_list({64, 1024}), "64, 1024");
  EXPECT_EQ(reduce_int_list({512, 512, 128}), "512 * 2, 128");
  EXPECT_EQ(reduce_int_list({1024, 1024, 256}), "1024 * 2, 256");
  // The last run is written without spaces (docs/cost-model.md O29).
  EXPECT_EQ(reduce_int_list({7, 7}), "7*2");
  EXPECT_EQ(reduce_int_list({1, 1, 2, 2}), "1 * 2, 2*2");
  EXPECT_EQ(reduce_int_list({1, 2, 2, 2, 3}), "1, 2 * 3, 3");
}

TEST(StatsFormat, TableAndJustification) {
  const std::vector<std::string> t =
      format_table({{"Rank", "Shards"}, {"------", "--------"}, {"0", "TW: 13"}});
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], "     Rank     Shards");
  EXPECT_EQ(t[1], "   ------   --------");
  EXPECT_EQ(t[2], "        0     TW: 13");

  EXPECT_EQ(center("ab", 7), "  ab   ");  // the odd space goes right
  EXPECT_EQ(center("abc", 8), "  abc   ");
  EXPECT_EQ(center("abcdef", 4), "abcdef");
  EXPECT_EQ(ljust("ab", 5), "ab   ");
  EXPECT_EQ(ljust("abcdef", 4), "abcdef");
}

TEST(StatsFormat, ExactMeanIsPythonStatisticsMean) {
  // statistics.mean sums exactly and rounds once; a running double sum
  // divided by n gives 0.8400000000000001 here.
  EXPECT_EQ(exact_mean({1e-17, 1e-17, 3.3, 0.7, 0.2}), 0.84);
  EXPECT_EQ(exact_mean({0.1, 0.2}), 0.15000000000000002);
  EXPECT_EQ(exact_mean({1.0, 0.0}), 0.5);
  EXPECT_EQ(exact_mean({0.0, 0.0}), 0.0);
  EXPECT_EQ(exact_mean({3.0}), 3.0);
}

TEST(StatsFormat, GeneralAndIntList) {
  EXPECT_EQ(general3(251.1234), "251");
  EXPECT_EQ(general3(0.0), "0");
  EXPECT_EQ(general3(1234.5), "1.23e+03");
  EXPECT_EQ(py_int_list({}), "[]");
  EXPECT_EQ(py_int_list({0, 5, 7}), "[0, 5, 7]");
}

}  // namespace
}  // namespace shardlab::planner
