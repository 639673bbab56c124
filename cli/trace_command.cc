// shardlab trace summarize: per-rank, per-step summaries of PyTorch profiler
// traces (docs/traces.md). The reading and every number are trace/'s.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.h"
#include "run_recording.h"
#include "shardlab/data/run_records.h"
#include "shardlab/trace/trace_summary.h"

namespace shardlab::cli {
namespace {

struct TraceArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string step_name = trace::TraceOptions{}.step_prefix;
  std::string output = "-";
  bool compact = false;
  bool quiet = false;
  StoreOptions store;
};

// The run's name: the first path's file or folder name, without .gz and .json.
std::string trace_name(const std::vector<std::string>& paths) {
  std::string name = std::filesystem::path(paths.front()).lexically_normal().filename().string();
  if (name.empty()) name = std::filesystem::path(paths.front()).parent_path().filename().string();
  for (const std::string_view ext : {".gz", ".json"}) {
    if (name.size() > ext.size() && name.ends_with(ext)) name.resize(name.size() - ext.size());
  }
  return paths.size() > 1 ? name + " and " + std::to_string(paths.size() - 1) + " more" : name;
}

int run_summarize(const TraceArgs& args) {
  VerbFiles files;
  for (const std::string& p : args.paths) files.input(p, "a trace");
  if (!files.output(args.output, "the summary output").store(args.store).distinct())
    return kExitInvalid;
  Result<RunRecorder> recorder = RunRecorder::start(args.store, args.quiet);
  if (!recorder.is_ok()) {
    print_error(recorder.status().message());
    return exit_status(recorder.status());
  }
  Result<trace::TraceSummary> summary =
      trace::summarize_traces(args.paths, trace::TraceOptions{.step_prefix = args.step_name});
  if (!summary) {
    print_error(summary.status().message());
    return exit_status(summary.status());
  }
  const std::string text = args.format == "json"
                               ? trace::summary_to_json(*summary, args.compact ? -1 : 2)
                               : trace::summary_text(*summary);
  if (Status w = write_output(args.output, text); !w.is_ok()) {
    print_error(w.message());
    return exit_status(w);
  }
  const std::vector<std::pair<std::string, double>> numbers = trace::headline(*summary);
  if (numbers.empty()) return kExitOk;  // no step: nothing measured to record
  return recorder->record(
      data::trace_run(trace_name(args.paths), summary->ranks.front().device, numbers));
}

}  // namespace

void add_trace_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* trace = app.add_subcommand(
      "trace",
      "Read PyTorch profiler traces of real training runs (Kineto's Chrome trace JSON, one file\n"
      "per rank, .json or .json.gz, as torch.profiler's export_chrome_trace or\n"
      "tensorboard_trace_handler write them); docs/traces.md defines every number.");
  trace->require_subcommand(1);
  CLI::App* sum = trace->add_subcommand(
      "summarize",
      "Per rank and per ProfilerStep#N: the step's time, its GPU work (the GPU events whose\n"
      "launching runtime call starts inside the step), the kernels, the GPU-busy time (the union\n"
      "of their intervals), the time in NCCL, FBGEMM embedding and GEMM kernels and in each\n"
      "phase, and the host side: how long the GPU sat idle, how much of that it waited for the\n"
      "host to launch work, the host's blocking synchronizations, and the verdict (host-bound,\n"
      "partly, GPU-bound). Given every rank of one job, the ranks' clocks are aligned by their\n"
      "collectives, each rank's NCCL time is split into waiting for peers and transferring, and\n"
      "each step names the rank that held the others back. Files are read as a stream, so size\n"
      "is no limit.\n"
      "The headline numbers (medians over every rank's steps) are recorded in the run store as a\n"
      "run of kind trace, which 'shardlab runs diff' sets beside a simulation of the same job.\n"
      "Exit status: 0 summarized, 2 a file that cannot be read,\n"
      "is not a complete trace (named with the byte offset) or has no ProfilerStep annotation, or\n"
      "an output that cannot be written.");
  sum->add_option("PATH", args->paths,
                  "Trace files, or folders whose *.json and *.json.gz files are read")
      ->required()
      ->type_name("PATH");
  sum->add_option("--step-name", args->step_name,
                  "The annotations that mark the steps: names starting with PREFIX, a number "
                  "after it the step's (else steps are numbered in time order); for a trace "
                  "without ProfilerStep#N, e.g. record_function(\"train_step\") (default: "
                  "ProfilerStep#)")
      ->type_name("PREFIX");
  sum->add_option("--format", args->format, "'text' or 'json' (default: text)")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("FORMAT");
  add_output_option(sum, &args->output, "the summary", "stdout");
  add_compact_flag(sum, &args->compact);
  add_quiet_flag(sum, &args->quiet, "the line naming the run recorded");
  add_store_options(sum, &args->store);
  sum->footer(
      example_footer("  shardlab trace summarize traces/rank-0.json.gz\n"
                     "  shardlab trace summarize traces/ --format json -o summary.json\n"
                     "  shardlab trace summarize job/rank-*.json.gz   (every rank: waits across "
                     "ranks)"));
  verbs.add(sum, [args] { return run_summarize(*args); });
}

}  // namespace shardlab::cli
