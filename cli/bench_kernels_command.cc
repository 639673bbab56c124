// shardlab bench-kernels: sweep embedding-bag shapes on a replay backend and
// report the bandwidth forward and backward achieve, beside a copy measured
// in the same run.

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.h"
#include "shardlab/data/message_text.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/replay_json.h"
#include "shardlab/kernels/backend.h"

namespace shardlab::cli {
namespace {

struct BenchArgs {
  std::string backend = "cpu";
  std::vector<std::string> rows;  // counts with optional k / M / G suffix (decimal)
  std::vector<int64_t> dims;
  std::vector<double> pooling;
  int64_t bags = kernels::KernelBenchOptions{}.bags;
  bool fp16 = false;
  std::string optimizer = "sgd";
  int iterations = kernels::KernelBenchOptions{}.iterations;
  int warmup = kernels::KernelBenchOptions{}.warmup;
  uint64_t seed = 1;
  std::string output;
  bool compact = false;
  bool quiet = false;
};

// "1000", "64k", "1M", "10M", "2G": decimal multiples.
Result<int64_t> parse_count(const std::string& text) {
  int64_t scale = 1;
  std::string digits = text;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k':
      case 'K':
        scale = 1000;
        break;
      case 'm':
      case 'M':
        scale = 1000000;
        break;
      case 'g':
      case 'G':
        scale = 1000000000;
        break;
      default:
        break;
    }
    if (scale != 1) digits.pop_back();
  }
  try {
    size_t used = 0;
    const long long n = std::stoll(digits, &used);
    if (used == digits.size() && n >= 1 && n <= std::numeric_limits<int64_t>::max() / scale) {
      return static_cast<int64_t>(n) * scale;
    }
  } catch (const std::exception&) {
  }
  return Status::invalid_argument("--rows: " + data::quoted(text) +
                                  " is not a positive count (e.g. 100000, 64k, 1M)");
}

double gbps(double bytes_per_s) { return bytes_per_s / 1e9; }

void print_table(std::ostream& out, const kernels::KernelBenchResult& r,
                 const kernels::KernelBenchOptions& o) {
  out << fmt::format(
      "bench-kernels on {} ({}), {} warm-up + {} timed calls per shape, optimizer {}\n", r.backend,
      r.device_name, o.warmup, o.iterations, kernels::to_string(o.optimizer));
  out << fmt::format("copy: {:.2f} GB/s (read + write bytes, as bytes.h counts kernels)\n",
                     gbps(r.copy_bytes_per_s));
  out << fmt::format("  {:>10} {:>5} {:>8} {:>7} {:>5} {:>10} {:>9} {:>6} {:>10} {:>9} {:>6}\n",
                     "rows", "dim", "pooling", "bags", "prec", "fwd_ms", "fwd GB/s", "%copy",
                     "bwd_ms", "bwd GB/s", "%copy");
  const double copy = r.copy_bytes_per_s;
  auto pct = [copy](double bps) {
    return copy > 0 ? fmt::format("{:.1f}", 100.0 * bps / copy) : std::string("-");
  };
  for (const kernels::KernelBenchRow& row : r.rows) {
    out << fmt::format(
        "  {:>10} {:>5} {:>8} {:>7} {:>5} {:>10.4f} {:>9.2f} {:>6} {:>10.4f} {:>9.2f} {:>6}\n",
        row.rows, row.dim, row.pooling_factor, row.bags, kernels::to_string(row.precision),
        row.forward.median_ms, gbps(row.forward_bytes_per_s), pct(row.forward_bytes_per_s),
        row.backward.median_ms, gbps(row.backward_bytes_per_s), pct(row.backward_bytes_per_s));
  }
}

int run_bench(const BenchArgs& args) {
  kernels::KernelBenchOptions o;
  if (!args.rows.empty()) {
    o.rows.clear();
    for (const std::string& text : args.rows) {
      Result<int64_t> n = parse_count(text);
      if (!n) {
        print_error(n.status().message());
        return kExitInvalid;
      }
      o.rows.push_back(*n);
    }
  }
  if (!args.dims.empty()) o.dims = args.dims;
  if (!args.pooling.empty()) o.pooling_factors = args.pooling;
  o.bags = args.bags;
  o.precision = args.fp16 ? kernels::Precision::kFp16 : kernels::Precision::kFp32;
  o.optimizer = args.optimizer == "rowwise_adagrad" ? kernels::OptimizerKind::kRowwiseAdagrad
                                                    : kernels::OptimizerKind::kSgd;
  o.iterations = args.iterations;
  o.warmup = args.warmup;
  o.seed = args.seed;

  Result<std::unique_ptr<kernels::ReplayBackend>> backend = kernels::make_backend(args.backend);
  if (!backend) {
    print_error(backend.status().message());
    return exit_status(backend.status());
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto progress = [&](int done, int total, std::string_view what) {
    if (args.quiet) return;
    std::cerr << fmt::format("{}bench-kernels [{}/{}] {}{}", tty ? "\r" : "", done, total, what,
                             tty ? "      " : "\n");
    if (tty && done == total) std::cerr << '\n';
    std::cerr.flush();
  };
  Result<kernels::KernelBenchResult> result = (*backend)->bench_kernels(o, progress);
  if (!result) {
    print_error(result.status().message());
    return exit_status(result.status());
  }
  if (!args.output.empty()) {
    const std::string json = data::kernel_bench_to_json(
        *result, args.compact ? data::kCompactJson : data::kDefaultJsonIndent);
    if (Status w = write_output(args.output, json); !w.is_ok()) {
      print_error(w.message());
      return exit_status(w);
    }
  }
  if (!args.quiet) print_table(args.output == "-" ? std::cerr : std::cout, *result, o);
  return kExitOk;
}

}  // namespace

void add_bench_kernels_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench-kernels",
      "Measure the bandwidth embedding-bag kernels reach, beside a copy measured in the same run.\n"
      "For every (rows, dim, pooling) of the sweep: a table of ROWS x DIM, BAGS bags of POOLING "
      "ids\n"
      "(uniform over the rows, fixed bag lengths), the forward (sum pooling) and the backward with "
      "the\n"
      "fused optimizer, timed after warm-up; bandwidth is bytes moved (docs/replay.md: ids, "
      "offsets, rows\n"
      "read, output written; backward: gradient read, ids, unique rows read and written) over the "
      "median\n"
      "time. The copy line is a device-to-device copy (memcpy on the cpu backend, one thread, as "
      "its\n"
      "kernels), counting read + write bytes.\n"
      "Exit status: 0 measured, 1 internal error, 2 usage or an output that cannot be written.");
  cmd->add_option("--backend", args->backend, "Backend: 'cpu' or 'cuda' (default: cpu)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->type_name("NAME");
  cmd->add_option("--rows", args->rows,
                  "Table rows to sweep, comma-separated, k/M/G = 10^3/10^6/10^9 "
                  "(default: 1048576)")
      ->delimiter(',')
      ->type_name("LIST");
  cmd->add_option("--dims", args->dims,
                  "Embedding dims to sweep, comma-separated (default: 32,64,128,256,512)")
      ->delimiter(',')
      ->check(number_at_least(1))
      ->type_name("LIST");
  cmd->add_option("--pooling", args->pooling,
                  "Pooling factors (ids per bag) to sweep, comma-separated "
                  "(default: 1,8,32)")
      ->delimiter(',')
      ->check(number_at_least(0))
      ->type_name("LIST");
  cmd->add_option("--bags", args->bags, "Bags per call (default: 8192)")
      ->check(number_at_least(1))
      ->type_name("N");
  cmd->add_flag("--fp16", args->fp16, "fp16 tables instead of fp32 (default: fp32)");
  cmd->add_option("--optimizer", args->optimizer,
                  "Fused update of the backward: 'sgd' or 'rowwise_adagrad' (default: sgd)")
      ->check(CLI::IsMember({"sgd", "rowwise_adagrad"}))
      ->type_name("NAME");
  cmd->add_option("--iterations", args->iterations, "Timed calls per shape (default: 20)")
      ->check(number_in_range(1, 1000000))
      ->type_name("N");
  cmd->add_option("--warmup", args->warmup, "Untimed calls per shape first (default: 3)")
      ->check(number_in_range(0, 1000000))
      ->type_name("N");
  cmd->add_option("--seed", args->seed, "Seed of ids, weights and gradients (default: 1)")
      ->type_name("S");
  add_output_option(cmd, &args->output, "the result JSON (docs/replay.md)", "none");
  add_compact_flag(cmd, &args->compact);
  add_quiet_flag(cmd, &args->quiet, "progress and the table");
  cmd->footer(
      example_footer("  shardlab bench-kernels --rows 1M --dims 64,128 --pooling 8,32\n"
                     "  shardlab bench-kernels --rows 100k --dims 128 --pooling 1,8,32 --fp16 "
                     "--optimizer rowwise_adagrad\n"
                     "  shardlab bench-kernels --backend cuda --rows 1M,10M --dims "
                     "128,256,512,1024 -o bench.json"));
  verbs.add(cmd, [args] { return run_bench(*args); });
}

}  // namespace shardlab::cli
