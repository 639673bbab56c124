// shardlab runs: list, show, export, diff, delete and check the runs recorded
// in the run store (data/run_store.h, docs/run-store.md).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.h"
#include "run_recording.h"
#include "shardlab/data/run_export.h"
#include "shardlab/data/run_records.h"
#include "shardlab/data/run_store.h"

namespace shardlab::cli {
namespace {

struct RunsArgs {
  std::string db;
  std::string kind;           // list: empty = all kinds
  std::string scenario;       // list: empty = all scenarios
  std::string label;          // list: empty = all labels; label: the new label
  int64_t label_id = 0;       // label: the run
  bool remove_label = false;  // label --remove
  int limit = 0;              // list: 0 = all
  std::string format = "text";
  std::vector<int64_t> ids;           // show/export: one; diff: one or two
  std::vector<std::string> id_lists;  // delete: "3", "5-7,9", ...
  int keep = -1;                      // prune --keep
  bool dry_run = false;               // prune --dry-run
  std::string output = "-";           // export
};

// Opens the store a `runs` verb reads (or, for delete, changes). A missing
// file is an error rather than a new empty store: reading must not leave a
// shardlab.db behind, and nothing is written to a store that is only read.
Result<data::RunStore> open_existing(const std::string& db_option,
                                     data::StoreAccess access = data::StoreAccess::kRead) {
  const DbLocation where = resolve_db(db_option);
  std::error_code ec;
  if (!std::filesystem::exists(where.path, ec)) {
    return Status::invalid_argument(
        fmt::format("{}: no run store here (nothing recorded yet? plan and simulate record their "
                    "runs; --db or SHARDLAB_DB name another file)",
                    shown(where.path)));
  }
  return data::RunStore::open(where.path, access);
}

int fail(const Status& st) {
  print_error(st.message());
  return exit_status(st);
}

// The filter of list and prune's --kind / --scenario.
data::RunFilter run_filter(const RunsArgs& args) {
  data::RunFilter filter;
  if (!args.kind.empty()) filter.kind = data::parse_run_kind(args.kind);
  if (!args.scenario.empty()) filter.scenario = args.scenario;
  if (!args.label.empty()) filter.label = args.label;
  filter.limit = args.limit;
  return filter;
}

// Deletes `ids` (ascending) in one transaction, then gives their space back;
// says what it did. The exit status.
int delete_and_compact(data::RunStore& store, const std::vector<int64_t>& ids) {
  if (Status st = store.delete_runs(ids); !st.is_ok()) return fail(st);
  Result<data::RunStore::Compacted> c = store.compact();
  const std::string what = fmt::format("deleted run{} {} from {}", ids.size() == 1 ? "" : "s",
                                       format_id_list(ids), shown(store.path()));
  if (!c) {
    std::cerr << what << '\n';
    return fail(c.status());
  }
  std::cerr << fmt::format("{}; the file went from {} to {}\n", what,
                           format_bytes(static_cast<double>(c->bytes_before)),
                           format_bytes(static_cast<double>(c->bytes_after)));
  return kExitOk;
}

// Long summaries are cut for the list's last column.
std::string shorten(const std::string& s, size_t max) {
  return s.size() <= max ? s : s.substr(0, max - 3) + "...";
}

int run_list(const RunsArgs& args) {
  const data::RunFilter filter = run_filter(args);
  Result<data::RunStore> store = open_existing(args.db);
  if (!store) return fail(store.status());
  Result<std::vector<data::RunSummary>> runs = store->list_runs(filter);
  if (!runs) return fail(runs.status());
  if (args.format == "json") {
    std::cout << data::run_summaries_to_json(*runs) << '\n';
    return kExitOk;
  }
  if (runs->empty()) {
    std::cout << fmt::format("no runs in {}\n", shown(store->path()));
    return kExitOk;
  }
  size_t wname = 8;
  size_t wlabel = 5;
  for (const data::RunSummary& r : *runs) {
    wname = std::max(wname, std::min<size_t>(r.scenario_name.size(), 32));
    wlabel = std::max(wlabel, std::min<size_t>(r.label.size(), 24));
  }
  std::cout << fmt::format("{:>6}  {:<9}  {:<24}  {:<{}}  {:<{}}  {:<16}  {:>9}  {}\n", "id",
                           "kind", "created (UTC)", "label", wlabel, "scenario", wname, "device",
                           "rows", "summary");
  for (const data::RunSummary& r : *runs) {
    const int64_t rows = r.estimate_count + r.sim_phase_count + r.measurement_count;
    const std::string device = data::device_label(r);
    std::cout << fmt::format(
        "{:>6}  {:<9}  {:<24}  {:<{}}  {:<{}}  {:<16}  {:>9}  {}\n", r.id, data::to_string(r.kind),
        shown(r.created_at), r.label.empty() ? std::string("-") : shown(shorten(r.label, 24)),
        wlabel, shown(shorten(r.scenario_name, 32)), wname, shown(shorten(device, 16)), rows,
        shown(shorten(data::summary_text(r.summary_json), 100)));
  }
  return kExitOk;
}

void print_run(const data::StoredRun& run) {
  const data::RunSummary& s = run.summary;
  std::cout << fmt::format("run {} ({})\n", s.id, data::to_string(s.kind));
  std::cout << fmt::format("  created      {}\n", s.created_at);
  std::cout << fmt::format("  scenario     {} (hash {})\n", shown(s.scenario_name),
                           shown(s.scenario_hash));
  std::cout << fmt::format("  host         {}\n", shown(s.host));
  std::cout << fmt::format("  device       {}{}\n", s.device.empty() ? "-" : shown(s.device),
                           s.backend.empty() ? "" : " (backend " + shown(s.backend) + ")");
  std::cout << fmt::format("  shardlab     {}\n", shown(s.shardlab_version));
  std::cout << fmt::format("  torchrec     {}\n",
                           s.torchrec_version.empty() ? "-" : shown(s.torchrec_version));
  std::cout << fmt::format("  summary      {}\n", shown(s.summary_json));
  std::cout << fmt::format(
      "  plan         {}\n",
      run.plan_json.empty() ? "none" : fmt::format("{} bytes of JSON", run.plan_json.size()));
  if (!run.inputs.empty()) {
    std::cout << fmt::format("  inputs       runs {}\n", fmt::join(run.inputs, ", "));
  }
  std::cout << fmt::format("  rows         {} estimates, {} simulated phases, {} measurements\n",
                           s.estimate_count, s.sim_phase_count, s.measurement_count);
  if (!run.estimates.empty()) {
    // Per-rank totals: what the plan puts on each rank.
    std::map<int, std::pair<double, int64_t>> per_rank;
    std::map<int, int> shards;
    for (const data::EstimateRow& e : run.estimates) {
      per_rank[e.rank].first += e.total_ms();
      per_rank[e.rank].second += e.hbm_bytes;
      ++shards[e.rank];
    }
    std::cout << "estimates per rank:\n";
    std::cout << fmt::format("  {:>8}  {:>7}  {:>12}  {:>12}\n", "rank", "shards", "perf_ms",
                             "hbm");
    for (const auto& [rank, v] : per_rank) {
      std::cout << fmt::format("  {:>8}  {:>7}  {:>12.6g}  {:>12}\n",
                               rank < 0 ? std::string("unplaced") : std::to_string(rank),
                               shards[rank], v.first, format_bytes(static_cast<double>(v.second)));
    }
  }
  if (!run.sim_phases.empty() || !run.measurements.empty()) {
    // Summed phase time per phase over all ranks, to show where time goes;
    // phases in pipeline declaration order, a column per source the run has.
    std::map<sim::Phase, std::pair<double, double>> phases;  // simulated, measured
    for (const data::SimPhaseRow& p : run.sim_phases)
      phases[p.phase].first += p.end_ms - p.start_ms;
    for (const kernels::Measurement& m : run.measurements)
      phases[m.phase].second += m.timing.median_ms;
    const bool simulated = !run.sim_phases.empty();
    const bool measured = !run.measurements.empty();
    std::cout << "phase time summed over ranks (ms):\n";
    std::cout << fmt::format("  {:<16}{}{}\n", "phase",
                             simulated ? fmt::format("  {:>12}", "simulated") : "",
                             measured ? fmt::format("  {:>12}", "measured") : "");
    for (const auto& [phase, v] : phases) {
      std::cout << fmt::format("  {:<16}{}{}\n", sim::to_string(phase),
                               simulated ? fmt::format("  {:>12.6g}", v.first) : "",
                               measured ? fmt::format("  {:>12.6g}", v.second) : "");
    }
  }
  if (run.calibration) {
    const data::CalibrationRow& c = *run.calibration;
    std::cout << fmt::format(
        "calibration {}: MAPE {:.3g}% before, {:.3g}% after ({} fitted, {} held out)\n",
        shown(c.name), c.mape_before, c.mape_after, c.fit_count, c.held_out_count);
  }
}

int run_show(const RunsArgs& args) {
  Result<data::RunStore> store = open_existing(args.db);
  if (!store) return fail(store.status());
  Result<data::StoredRun> run = store->get_run(args.ids.at(0));
  if (!run) return fail(run.status());
  if (args.format == "json") {
    std::cout << data::run_to_json(*run) << '\n';
  } else {
    print_run(*run);
  }
  return kExitOk;
}

int run_export(const RunsArgs& args) {
  const bool distinct = VerbFiles()
                            .input(resolve_db(args.db).path, "the run store")
                            .output(args.output, "the export output")
                            .distinct();
  if (!distinct) return kExitInvalid;
  Result<data::RunStore> store = open_existing(args.db);
  if (!store) return fail(store.status());
  Result<data::StoredRun> run = store->get_run(args.ids.at(0));
  if (!run) return fail(run.status());
  if (Status w = write_output(args.output, data::run_to_json(*run)); !w.is_ok()) return fail(w);
  if (args.output != "-")
    std::cerr << fmt::format("exported run {} to {}\n", args.ids[0], shown(args.output));
  return kExitOk;
}

int run_diff(const RunsArgs& args) {
  if (args.ids.size() > 2) {
    print_error(fmt::format(
        "runs diff compares two runs (A B) or one run with the run it was derived from (ID); "
        "got {} ids: {}",
        args.ids.size(), fmt::join(args.ids, " ")));
    return kExitInvalid;
  }
  Result<data::RunStore> store = open_existing(args.db);
  if (!store) return fail(store.status());
  // One id: the run against the run it was derived from (an optimize run's
  // start plan).
  Result<data::StoredRun> b = store->get_run(args.ids.back());
  if (!b) return fail(b.status());
  int64_t a_id = args.ids.front();
  if (args.ids.size() == 1) {
    if (b->inputs.size() != 1) {
      return fail(Status::invalid_argument(
          fmt::format("run {} was derived from {} runs, not one: name two runs to compare",
                      args.ids[0], b->inputs.size())));
    }
    a_id = b->inputs.front();
  }
  Result<data::StoredRun> a = store->get_run(a_id);
  if (!a) return fail(a.status());
  const data::RunDiff diff = data::diff_runs(*a, *b);
  std::cout << (args.format == "json" ? data::diff_to_json(diff) : data::diff_to_text(diff))
            << '\n';
  return kExitOk;
}

int run_delete(const RunsArgs& args) {
  std::vector<int64_t> ids;
  for (const std::string& list : args.id_lists) {
    Result<std::vector<int64_t>> parsed =
        parse_id_list(list, IdListSpec{.option = "runs delete",
                                       .what = "run id",
                                       .minimum = 1,
                                       .maximum = std::numeric_limits<int64_t>::max()});
    if (!parsed) return fail(parsed.status());
    ids.insert(ids.end(), parsed->begin(), parsed->end());
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  Result<data::RunStore> store = open_existing(args.db, data::StoreAccess::kWrite);
  if (!store) return fail(store.status());
  return delete_and_compact(*store, ids);
}

int run_label(const RunsArgs& args) {
  if (args.label.empty() != args.remove_label) {
    return fail(Status::invalid_argument(
        "runs label: give the run a label (runs label ID TEXT), or remove it (runs label ID "
        "--remove), not both"));
  }
  Result<data::RunStore> store = open_existing(args.db, data::StoreAccess::kWrite);
  if (!store) return fail(store.status());
  const int64_t id = args.label_id;
  if (Status st = store->set_label(id, args.label); !st.is_ok()) return fail(st);
  std::cerr << (args.label.empty() ? fmt::format("run {} has no label now\n", id)
                                   : fmt::format("run {} is labelled {}\n", id, shown(args.label)));
  return kExitOk;
}

int run_prune(const RunsArgs& args) {
  Result<data::RunStore> store =
      open_existing(args.db, args.dry_run ? data::StoreAccess::kRead : data::StoreAccess::kWrite);
  if (!store) return fail(store.status());
  Result<std::vector<int64_t>> beyond = store->runs_beyond(run_filter(args), args.keep);
  if (!beyond) return fail(beyond.status());
  std::vector<int64_t> ids = std::move(beyond).value();
  std::sort(ids.begin(), ids.end());
  if (ids.empty()) {
    std::cerr << fmt::format("nothing to prune in {}: at most {} run{} match\n",
                             shown(store->path()), args.keep, args.keep == 1 ? "" : "s");
    return kExitOk;
  }
  if (args.dry_run) {
    std::cout << fmt::format("would delete run{} {}\n", ids.size() == 1 ? "" : "s",
                             format_id_list(ids));
    return kExitOk;
  }
  return delete_and_compact(*store, ids);
}

int run_check(const RunsArgs& args) {
  Result<data::RunStore> store = open_existing(args.db);
  if (!store) return fail(store.status());
  if (Status st = store->check_integrity(); !st.is_ok()) return fail(st);
  std::cout << fmt::format("{}: ok\n", shown(store->path()));
  return kExitOk;
}

// --kind and --scenario of list and prune; `only` begins their help ("Only runs").
void add_run_filter_options(CLI::App* sub, RunsArgs* args, const std::string& only) {
  std::string kinds;
  for (const std::string& k : data::run_kind_names()) kinds += (kinds.empty() ? "" : ", ") + k;
  sub->add_option("--kind", args->kind, only + " of this kind: " + kinds + " (default: all)")
      ->check(CLI::IsMember(data::run_kind_names()))
      ->type_name("KIND");
  sub->add_option("--scenario", args->scenario, only + " of this scenario name (default: all)")
      ->type_name("NAME");
}

// Adds a sub-verb of `runs` with --db and the shared example footer.
CLI::App* add_sub(CLI::App* runs, const char* name, const char* description, RunsArgs* args) {
  CLI::App* sub = runs->add_subcommand(name, description);
  add_db_option(sub, &args->db);
  return sub;
}

}  // namespace

void add_runs_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<RunsArgs>();
  CLI::App* runs = app.add_subcommand(
      "runs",
      "List, show, export, compare and delete the runs recorded in the run store.\n"
      "plan, simulate, compare, optimize, replay and calibrate record each run in an SQLite file:\n"
      "--db PATH, else $SHARDLAB_DB, else shardlab.db in the working directory\n"
      "(docs/run-store.md). Exit status: 0 ok, 2 no such run, no store at the path, a file that\n"
      "is not a run store (left unchanged), an unreadable, damaged or newer store, usage, or an\n"
      "output that cannot be written. Only 'runs delete' and 'runs prune' write to the store.");
  runs->require_subcommand(1);
  runs->footer(example_footer(
      "  shardlab plan dlrm.json -o plan.json && shardlab simulate dlrm.json --plan plan.json\n"
      "  shardlab runs list\n"
      "  shardlab runs list --kind simulate --limit 5 --format json\n"
      "  shardlab runs show 2\n"
      "  shardlab runs export 2 -o run2.json\n"
      "  shardlab runs diff 1 2\n"
      "  shardlab runs delete 1\n"
      "  shardlab runs prune --keep 20\n"
      "  SHARDLAB_DB=/data/team.db shardlab runs list"));

  CLI::App* list = add_sub(runs, "list", "List runs, newest first", args.get());
  add_run_filter_options(list, args.get(), "Only runs");
  list->add_option("--label", args->label, "Only runs with this label (default: all)")
      ->type_name("TEXT");
  list->add_option("--limit", args->limit, "Show the newest N runs; 0 shows all (default: all)")
      ->check(number_at_least(0))
      ->type_name("N");
  list->add_option("--format", args->format, "'text' or 'json' (default: text)")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("FORMAT");
  list->footer(example_footer(
      "  shardlab runs list --kind plan --limit 10\n  shardlab runs list --format json"));
  verbs.add(list, [args] { return run_list(*args); });

  CLI::App* show = add_sub(
      runs, "show", "Show one run: metadata, summary, per-rank estimates, phase times", args.get());
  show->add_option("id", args->ids, "Run id (see 'runs list')")
      ->required()
      ->expected(1)
      ->check(run_id_check());
  show->add_option("--format", args->format,
                   "'text' or 'json' (the export document) (default: text)")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("FORMAT");
  show->footer(example_footer("  shardlab runs show 3\n  shardlab runs show 3 --format json"));
  verbs.add(show, [args] { return run_show(*args); });

  CLI::App* exp = add_sub(runs, "export", "Write one run, with all of its rows, as a JSON document",
                          args.get());
  exp->add_option("id", args->ids, "Run id (see 'runs list')")
      ->required()
      ->expected(1)
      ->check(run_id_check());
  add_output_option(exp, &args->output, "the run's JSON document", "stdout");
  exp->footer(example_footer("  shardlab runs export 3 -o run3.json"));
  verbs.add(exp, [args] { return run_export(*args); });

  CLI::App* diff = add_sub(
      runs, "diff",
      "Compare two runs: summary numbers, changed placements, per-rank estimates, phase times",
      args.get());
  diff->add_option("ids", args->ids,
                   "Two run ids, A then B; deltas are B - A. One id: that run against the run "
                   "it was derived from (an optimize run against its start plan)")
      ->required()
      ->expected(1, -1)  // more than two: refused in run_diff, with a message that says why
      ->check(run_id_check());
  diff->add_option("--format", args->format, "'text' or 'json' (default: text)")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("FORMAT");
  diff->footer(
      example_footer("  shardlab runs diff 3 4\n  shardlab runs diff 3 4 --format json\n"
                     "  shardlab runs diff 5    # an optimize run against its start plan"));
  verbs.add(diff, [args] { return run_diff(*args); });

  CLI::App* del = add_sub(
      runs, "delete",
      "Delete runs and all of their rows (all or none), then give their space back to the disk",
      args.get());
  del->add_option("ids", args->id_lists,
                  "Run ids (see 'runs list'): one or more, each an id or a list such as 3,5-7")
      ->required()
      ->type_name("IDS");
  del->footer(example_footer("  shardlab runs delete 3\n  shardlab runs delete 3,5-7 12"));
  verbs.add(del, [args] { return run_delete(*args); });

  CLI::App* label =
      add_sub(runs, "label", "Give a run a label, or remove it with --remove", args.get());
  label->add_option("id", args->label_id, "Run id (see 'runs list')")
      ->required()
      ->check(run_id_check());
  label->add_option("text", args->label, "The label")->type_name("TEXT");
  label->add_flag("--remove", args->remove_label, "Remove the run's label (default: off)");
  label->footer(
      example_footer("  shardlab runs label 3 baseline\n  shardlab runs list --label "
                     "baseline\n  shardlab runs label 3 --remove"));
  verbs.add(label, [args] { return run_label(*args); });

  CLI::App* prune = add_sub(
      runs, "prune",
      "Delete all but the newest N runs (of a kind or scenario, when given), then give their\n"
      "space back to the disk",
      args.get());
  prune->add_option("--keep", args->keep, "How many of the newest matching runs to keep")
      ->required()
      ->check(number_at_least(0))
      ->type_name("N");
  add_run_filter_options(prune, args.get(), "Only prune runs");
  prune->add_flag("--dry-run", args->dry_run,
                  "Print the runs it would delete and change nothing (default: off)");
  prune->footer(
      example_footer("  shardlab runs prune --keep 20\n"
                     "  shardlab runs prune --keep 3 --kind simulate --dry-run"));
  verbs.add(prune, [args] { return run_prune(*args); });

  CLI::App* check =
      add_sub(runs, "check", "Check the store's integrity (SQLite's and every run's row counts)",
              args.get());
  check->footer(example_footer("  shardlab runs check --db shardlab.db"));
  verbs.add(check, [args] { return run_check(*args); });
}

}  // namespace shardlab::cli
