// Unit strings (docs/scenario-format.md): a size is the exact byte count, a bandwidth the
// exact value number x unit / 1000 rounded once to the nearest double.
//
// Exact references: when a and a*2^j are integers below 2^53, the double
// expression (a * 2^j) / 10^k is exact up to one IEEE division, which is
// correctly rounded, so it equals the correctly rounded exact quotient. The
// loops below use that; the literal cases pin values where multiplying in
// doubles first would be off by a bit.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::data {
namespace {

int64_t size_of(const std::string& s) {
  auto r = parse_size_string(s);
  EXPECT_TRUE(r.is_ok()) << '"' << s << "\": " << r.status().message();
  return r.is_ok() ? *r : -1;
}

double bandwidth_of(const std::string& s) {
  auto r = parse_bandwidth_string(s);
  EXPECT_TRUE(r.is_ok()) << '"' << s << "\": " << r.status().message();
  return r.is_ok() ? *r : -1.0;
}

std::string size_error(const std::string& s) {
  auto r = parse_size_string(s);
  EXPECT_FALSE(r.is_ok()) << '"' << s << "\" parsed as " << (r.is_ok() ? *r : 0);
  if (r.is_ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

std::string bandwidth_error(const std::string& s) {
  auto r = parse_bandwidth_string(s);
  EXPECT_FALSE(r.is_ok()) << '"' << s << "\" parsed as " << (r.is_ok() ? *r : 0);
  return r.is_ok() ? "" : r.status().message();
}

// Bitwise equality, so that -0.0/0.0 or a last-bit difference cannot hide.
void expect_same_double(double actual, double expected, const std::string& what) {
  EXPECT_EQ(std::bit_cast<uint64_t>(actual), std::bit_cast<uint64_t>(expected))
      << what << ": got " << actual << " expected " << expected;
}

TEST(SizeString, EveryUnit) {
  EXPECT_EQ(size_of("0 B"), 0);
  EXPECT_EQ(size_of("1 B"), 1);
  EXPECT_EQ(size_of("1 KB"), 1000);
  EXPECT_EQ(size_of("1 MB"), 1000000);
  EXPECT_EQ(size_of("80 GB"), 80000000000);
  EXPECT_EQ(size_of("2 TB"), 2000000000000);
  EXPECT_EQ(size_of("1 KiB"), 1024);
  EXPECT_EQ(size_of("3 MiB"), 3 * (int64_t{1} << 20));
  EXPECT_EQ(size_of("32 GiB"), planner::kDefaultHbmCap);
  EXPECT_EQ(size_of("128 GiB"), planner::kDefaultDdrCap);
  EXPECT_EQ(size_of("1 TiB"), int64_t{1} << 40);
}

TEST(SizeString, SpacingIsFree) {
  EXPECT_EQ(size_of("32GiB"), planner::kDefaultHbmCap);
  EXPECT_EQ(size_of("  32 GiB  "), planner::kDefaultHbmCap);
  EXPECT_EQ(size_of("32    GiB"), planner::kDefaultHbmCap);
}

TEST(SizeString, FractionsAndExponentsGivingWholeBytes) {
  EXPECT_EQ(size_of("1.5 KiB"), 1536);
  EXPECT_EQ(size_of("0.5 KiB"), 512);
  EXPECT_EQ(size_of("0.75 KiB"), 768);
  EXPECT_EQ(size_of("1e9 B"), 1000000000);
  EXPECT_EQ(size_of("1E9 B"), 1000000000);
  EXPECT_EQ(size_of("1e+3 KB"), 1000000);
  EXPECT_EQ(size_of("1e-3 KB"), 1);
  EXPECT_EQ(size_of("0.001 KB"), 1);
  EXPECT_EQ(size_of("1.25e3 MiB"), 1250 * (int64_t{1} << 20));
  EXPECT_EQ(size_of("0.0009765625 KiB"), 1);  // 2^-10 KiB
  EXPECT_EQ(size_of("000032.000 GiB"), planner::kDefaultHbmCap);
  EXPECT_EQ(size_of("0 GiB"), 0);
  EXPECT_EQ(size_of("0.0e999999999999 B"), 0);
}

TEST(SizeString, Int64Limits) {
  EXPECT_EQ(size_of("9223372036854775807 B"), INT64_MAX);
  EXPECT_EQ(size_of("8388607 TiB"), int64_t{8388607} << 40);
  EXPECT_EQ(size_of("1e18 B"), 1000000000000000000);
  EXPECT_NE(size_error("9223372036854775808 B").find("too large"), std::string::npos);
  EXPECT_NE(size_error("8388608 TiB").find("too large"), std::string::npos);
  EXPECT_NE(size_error("1e19 B").find("too large"), std::string::npos);
  EXPECT_NE(size_error("1e999999999999 B").find("too large"), std::string::npos);
  EXPECT_NE(size_error("99999999999999999999999999999999 TB").find("too large"), std::string::npos);
}

TEST(SizeString, NotWholeBytes) {
  EXPECT_NE(size_error("0.1 GiB").find("not a whole number of bytes"), std::string::npos);
  EXPECT_NE(size_error("0.5 B").find("not a whole number of bytes"), std::string::npos);
  EXPECT_NE(size_error("0.0001 KB").find("not a whole number of bytes"), std::string::npos);
  EXPECT_NE(size_error("1e-999999999999 B").find("not a whole number of bytes"), std::string::npos);
  EXPECT_NE(size_error("1.00000000001 KiB").find("not a whole number of bytes"), std::string::npos);
}

TEST(SizeString, BadSyntax) {
  EXPECT_NE(size_error("32 gib").find("unknown unit \"gib\""), std::string::npos);
  EXPECT_NE(size_error("32 GIB").find("unknown unit"), std::string::npos);
  EXPECT_NE(size_error("32 EiB").find("unknown unit"), std::string::npos);
  EXPECT_NE(size_error("32 bytes").find("unknown unit"), std::string::npos);
  EXPECT_NE(size_error("32 GiB/s").find("takes no /s"), std::string::npos);
  EXPECT_NE(size_error("32").find("missing unit"), std::string::npos);
  EXPECT_NE(size_error("").find("empty"), std::string::npos);
  EXPECT_NE(size_error("   ").find("empty"), std::string::npos);
  EXPECT_NE(size_error("GiB").find("must start with"), std::string::npos);
  EXPECT_NE(size_error("-1 GiB").find("must start with"), std::string::npos);
  EXPECT_NE(size_error("+1 GiB").find("must start with"), std::string::npos);
  EXPECT_NE(size_error(".5 GiB").find("must start with"), std::string::npos);
  EXPECT_NE(size_error("nan GiB").find("must start with"), std::string::npos);
  EXPECT_NE(size_error("\t32 GiB").find("must start with"), std::string::npos);
  EXPECT_NE(size_error("1. GiB").find("digits after '.'"), std::string::npos);
  EXPECT_NE(size_error("1.5.5 GiB").find("unknown unit"), std::string::npos);
  EXPECT_NE(size_error("1e GiB").find("unknown unit"), std::string::npos);
  EXPECT_NE(size_error("0x10 B").find("unknown unit"), std::string::npos);
  EXPECT_NE(size_error("1,5 GiB").find("unknown unit"), std::string::npos);
  EXPECT_NE(size_error("1 000 B").find("unknown unit"), std::string::npos);
  EXPECT_NE(size_error(std::string(300, '1') + " B").find("longer than"), std::string::npos);
  EXPECT_FALSE(size_error(std::string("3\0 GiB", 6)).empty());
}

TEST(BandwidthString, TorchRecDefaultsBitForBit) {
  expect_same_double(bandwidth_of("897 GiB/s"), planner::kDefaultHbmMemBw, "hbm");
  expect_same_double(bandwidth_of("897 GiB/s"), 963146416.128, "hbm literal");
  expect_same_double(bandwidth_of("51 GiB/s"), planner::kDefaultDdrMemBw, "ddr");
  expect_same_double(bandwidth_of("51 GiB/s"), 54760833.024, "ddr literal");
  expect_same_double(bandwidth_of("600 GiB/s"), planner::kDefaultIntraHostBw, "intra");
  expect_same_double(bandwidth_of("600 GiB/s"), 644245094.4, "intra literal");
  expect_same_double(bandwidth_of("12.5 GiB/s"), planner::kDefaultInterHostBw, "inter");
  expect_same_double(bandwidth_of("12.5 GiB/s"), 13421772.8, "inter literal");
}

TEST(BandwidthString, DecimalUnits) {
  expect_same_double(bandwidth_of("3.35 TB/s"), 3350000000.0, "3.35 TB/s");
  expect_same_double(bandwidth_of("100 GB/s"), 100000000.0, "100 GB/s");
  expect_same_double(bandwidth_of("450 GB/s"), 450000000.0, "450 GB/s");
  expect_same_double(bandwidth_of("1 B/s"), 0.001, "1 B/s");
  expect_same_double(bandwidth_of("1 KB/s"), 1.0, "1 KB/s");
  expect_same_double(bandwidth_of("5E2 MB/s"), 500000.0, "5E2 MB/s");
  expect_same_double(bandwidth_of("1.5e-3 TB/s"), 1500000.0, "1.5e-3 TB/s");
}

// Values where (x * unit) / 1000 in doubles misses the exact result by a bit.
TEST(BandwidthString, ExactWhereDoubleArithmeticIsNot) {
  expect_same_double(bandwidth_of("2.01 MB/s"), 2010.0, "2.01 MB/s");
  expect_same_double(bandwidth_of("1.07 GB/s"), 1070000.0, "1.07 GB/s");
  expect_same_double(bandwidth_of("0.27 TB/s"), 270000000.0, "0.27 TB/s");
  expect_same_double(bandwidth_of("0.03 KiB/s"), 0.03072, "0.03 KiB/s");
  expect_same_double(bandwidth_of("0.07 GiB/s"), 75161.92768, "0.07 GiB/s");
  expect_same_double(bandwidth_of("0.06 TiB/s"), 65970697.66656, "0.06 TiB/s");
  expect_same_double(bandwidth_of("0.1 GiB/s"), 107374.1824, "0.1 GiB/s");
  expect_same_double(bandwidth_of("1.5 KiB/s"), 1.536, "1.5 KiB/s");
}

TEST(BandwidthString, IntegerCountsOfBinaryUnitsMatchOneDivision) {
  const struct {
    const char* unit;
    double bytes;
    int64_t max_count;
  } kUnits[] = {
      {"KiB", 1024.0, 1 << 22},
      {"MiB", 1048576.0, 1 << 22},
      {"GiB", 1073741824.0, 1 << 22},
      {"TiB", 1099511627776.0, 1 << 12},
  };
  for (const auto& u : kUnits) {
    for (int64_t a = 1; a < u.max_count; a = a * 3 + 1) {
      for (int64_t d = 0; d < 50; ++d) {
        const int64_t n = a + d;
        const std::string text = std::to_string(n) + " " + u.unit + "/s";
        expect_same_double(bandwidth_of(text), (static_cast<double>(n) * u.bytes) / 1000.0, text);
      }
    }
  }
}

TEST(BandwidthString, HundredthsMatchOneDivision) {
  // "i/100 <unit>/s" is exactly i * unit / 10^5.
  const struct {
    const char* unit;
    double bytes;
  } kUnits[] = {
      {"KiB", 1024.0},
      {"MiB", 1048576.0},
      {"GiB", 1073741824.0},
      {"KB", 1000.0},
  };
  for (const auto& u : kUnits) {
    for (int64_t i = 1; i < 30000; i += 7) {
      const std::string text = std::to_string(i / 100) + "." + (i % 100 < 10 ? "0" : "") +
                               std::to_string(i % 100) + " " + u.unit + "/s";
      expect_same_double(bandwidth_of(text), (static_cast<double>(i) * u.bytes) / 100000.0, text);
    }
  }
}

TEST(BandwidthString, Errors) {
  EXPECT_NE(bandwidth_error("897 GiB").find("needs /s"), std::string::npos);
  EXPECT_NE(bandwidth_error("897 GiB/S").find("unknown unit"), std::string::npos);
  EXPECT_NE(bandwidth_error("897 GB/sec").find("unknown unit"), std::string::npos);
  EXPECT_NE(bandwidth_error("897 GiB /s").find("unknown unit"), std::string::npos);
  EXPECT_NE(bandwidth_error("897 gib/s").find("unknown unit"), std::string::npos);
  EXPECT_NE(bandwidth_error("/s").find("must start with"), std::string::npos);
  EXPECT_NE(bandwidth_error("-1 GB/s").find("must start with"), std::string::npos);
  EXPECT_NE(bandwidth_error("inf GB/s").find("must start with"), std::string::npos);
  EXPECT_NE(bandwidth_error("1e400 TB/s").find("too large"), std::string::npos);
  EXPECT_NE(bandwidth_error("1e-400 B/s").find("too small"), std::string::npos);
}

TEST(BandwidthString, ZeroParsesAndIsLeftToTheLoader) {
  // The loader refuses a 0 bandwidth naming the field (scenario_loader_test).
  EXPECT_EQ(bandwidth_of("0 GiB/s"), 0.0);
  EXPECT_EQ(bandwidth_of("0.000 TB/s"), 0.0);
}

TEST(BandwidthString, LongMantissaIsRoundedOnce) {
  // 17+ significant digits: the exact decimal decides, not a pre-rounded double.
  expect_same_double(bandwidth_of("963146416128.0000000000000000001 B/s"), 963146416.128,
                     "long mantissa");
  expect_same_double(bandwidth_of("0.963146416128 TB/s"), 963146416.128, "0.963146416128 TB/s");
}

}  // namespace
}  // namespace shardlab::data
