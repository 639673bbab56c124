// shardlab: command-line front end of the planner and the simulator. Each verb
// lives in its own file (plan_command.cc, options_command.cc,
// validate_command.cc, simulate_command.cc, compare_command.cc) and only parses
// arguments, calls planner/, sim/ and data/, and prints; its run returns its
// exit status (report_failure() turns a failure into one), and main() runs
// the verb the command line chose (VerbRuns) and returns it.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_common.h"
#include "shardlab/data/message_text.h"

#ifndef SHARDLAB_VERSION
#define SHARDLAB_VERSION "0.1.0"
#endif

namespace {

// Lists each verb by the first line of its description; the verb's own
// --help shows all of it.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    const std::string& desc = sub->get_description();
    CLI::detail::format_help(out, sub->get_display_name(true), desc.substr(0, desc.find('\n')),
                             column_width_);
    return out.str();
  }
};

// The verbs of `app` (or of a verb with sub-verbs), for messages.
std::string verb_list(const CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    out += (out.empty() ? "" : ", ") + sub->get_name();
  }
  return out;
}

// An option of the verbs given before the verb ("shardlab --db x.db plan
// ..."), which CLI11 answers with "arguments were not expected": says where
// it goes. "" when `word` (argv[at]) is not such an option.
std::string option_before_verb(const CLI::App& app, int argc, char** argv, int at) {
  const std::string word = argv[at];
  const std::string name = word.substr(0, word.find('='));
  if (name.size() < 2 || app.get_option_no_throw(name) != nullptr) return std::string();
  for (int i = at + 1; i < argc; ++i) {
    const std::string verb = argv[i];
    if (verb.empty() || verb[0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (!sub->check_name(verb)) continue;
      // A verb with sub-verbs (runs) holds the option on each of them.
      const CLI::App* holder = sub;
      if (sub->get_require_subcommand_min() > 0 && i + 1 < argc) {
        for (const CLI::App* s2 : sub->get_subcommands([](const CLI::App*) { return true; })) {
          if (s2->check_name(argv[i + 1])) holder = s2;
        }
      }
      if (holder->get_option_no_throw(name) == nullptr) return std::string();
      const std::string where =
          shardlab::cli::shown(holder == sub ? verb : verb + " " + argv[i + 1]);
      return fmt::format(
          "{} is an option of '{}', not of shardlab itself: put it after the verb "
          "(shardlab {} {} ...)",
          shardlab::cli::shown(name), where, where, shardlab::cli::shown(name));
    }
  }
  return std::string();
}

// CLI11 answers a word that is not a verb with "A subcommand is required" or
// "The following arguments were not expected", naming neither the word nor
// the verbs. Checks the first word after the program (and after a verb with
// sub-verbs, such as runs) and returns the message, or "" when it is a verb
// (or an option, left to CLI11).
std::string unknown_verb(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  std::string of;  // " of runs" below the top level
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') {
      // An option: CLI11 judges it, unless it belongs after the verb.
      return level == &app ? option_before_verb(app, argc, argv, i) : std::string();
    }
    const std::vector<const CLI::App*> subs =
        level->get_subcommands([](const CLI::App*) { return true; });
    const auto it = std::find_if(subs.begin(), subs.end(),
                                 [&](const CLI::App* s) { return s->check_name(word); });
    if (it == subs.end()) {
      return fmt::format("{} is not a verb{}; the verbs{} are: {}", shardlab::data::quoted(word),
                         of, of, verb_list(*level));
    }
    if ((*it)->get_require_subcommand_min() == 0) return std::string();  // a verb without sub-verbs
    level = *it;
    of = " of " + word;
  }
  return fmt::format("no verb given; the verbs{} are: {}", of, verb_list(*level));
}

// Levenshtein distance, for suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// For each "--word" of the command line that the verb parsed does not know:
// "unknown option --iteration: did you mean --iterations?" when one of its
// options is within two edits (or starts with it), one line each.
std::string did_you_mean(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  for (const CLI::App* a = shardlab::cli::parsed_verb(app); a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* o : a->get_options()) {
      for (const std::string& n : o->get_lnames()) known.push_back("--" + n);
    }
  }
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) != 0 || word.size() < 3) continue;
    word = word.substr(0, word.find('='));
    if (std::find(known.begin(), known.end(), word) != known.end()) continue;
    std::string best;
    std::size_t best_distance = 3;
    for (const std::string& k : known) {
      const std::size_t d = k.rfind(word, 0) == 0 ? 1 : edit_distance(word, k);
      if (d < best_distance) {
        best_distance = d;
        best = k;
      }
    }
    if (!best.empty()) out += "unknown option " + word + ": did you mean " + best + "?\n";
  }
  return out;
}

int run(int argc, char** argv) {
  using namespace shardlab::cli;
  CLI::App app{
      "ShardLab: TorchRec's embedding sharding planner, reimplemented in C++, and a simulator of "
      "the plans.\n"
      "Same plans and numbers as TorchRec's EmbeddingShardingPlanner, from one scenario JSON file; "
      "then\n"
      "a discrete-event simulation of training iterations shows how a plan runs on the cluster's "
      "links.",
      "shardlab"};
  app.failure_message([&app, argc, argv](const CLI::App*, const CLI::Error& e) {
    return "shardlab: error: " + std::string(e.what()) + "\n" + did_you_mean(app, argc, argv) +
           "Run with --help for more information.\n";
  });
  app.formatter(std::make_shared<HelpFormatter>());
  app.set_version_flag("--version", "shardlab " SHARDLAB_VERSION);
  app.require_subcommand(1);
  app.footer(
      "\nExit status: 0 ok, 1 internal error, 2 invalid input or usage, or a file that cannot be\n"
      "read or written (docs/outputs.md), 3 no plan found.\n"
      "Environment: SHARDLAB_DB the run store (default shardlab.db); SHARDLAB_NO_RECORD=1\n"
      "records no run; SHARDLAB_MEMORY_BUDGET the memory a run may use (e.g. '8 GiB'; default:\n"
      "physical memory and ulimits); SHARDLAB_MEMORY_REPORT=1 prints each memory check\n"
      "(docs/scenario-format.md \"Memory\"); SHARDLAB_CUDA_BACKEND the CUDA replay module.\n"
      "Run 'shardlab VERB --help' for each verb's options.\n" +
      example_footer(
          "  shardlab validate dlrm.json && shardlab plan dlrm.json -o plan.json --stats\n"
          "  shardlab simulate dlrm.json --plan plan.json --trace trace.json"));

  report_memory_checks_if_asked();
  VerbRuns verbs;
  add_plan_command(app, verbs);
  add_options_command(app, verbs);
  add_validate_command(app, verbs);
  add_simulate_command(app, verbs);
  add_compare_command(app, verbs);
  add_optimize_command(app, verbs);
  add_runs_command(app, verbs);
  add_replay_command(app, verbs);
  add_bench_kernels_command(app, verbs);
  add_calibrate_command(app, verbs);
  add_presets_command(app, verbs);
  add_sweep_command(app, verbs);
  add_trace_command(app, verbs);
  refuse_empty_values(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) {
      if (const std::string verb = unknown_verb(app, argc, argv); !verb.empty()) {
        print_error(verb);
        std::cerr << "Run with --help for more information.\n";
        return kExitInvalid;
      }
    }
    const int code = app.exit(e);  // prints help, version or the usage error
    return code == 0 ? kExitOk : kExitInvalid;
  }
  return verbs.run_parsed(app);
}

}  // namespace

int main(int argc, char** argv) {
  // The libraries never exit and report expected failures as values; anything
  // thrown is a bug or a system failure (e.g. out of memory).
  // No control character reaches the terminal raw, whoever prints it.
  const shardlab::cli::SafeOutput safe_output;
  try {
    // A verb's output lost on a full disk or a closed pipe is a failure too.
    return shardlab::cli::finish_stdout(run(argc, argv));
  } catch (const std::exception& e) {
    shardlab::cli::print_error(std::string("internal error: ") + e.what());
  } catch (...) {
    shardlab::cli::print_error("internal error: unknown exception");
  }
  return shardlab::cli::kExitInternal;
}
