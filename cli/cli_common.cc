#include "cli_common.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <limits>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "shardlab/data/message_text.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/memory_budget.h"

namespace shardlab::cli {

int exit_status(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return kExitOk;
    // What the user gave or asked for cannot be used: a bad input, a file or
    // run that is not there, a damaged store, a device this host lacks.
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kCorrupt:
    case StatusCode::kIo:
    case StatusCode::kUnavailable:
      return kExitInvalid;
    case StatusCode::kPlanner:
      return kExitPlanner;
    case StatusCode::kInternal:
      return kExitInternal;
  }
  return kExitInternal;
}

void print_error(const std::string& message) {
  std::cerr << "shardlab: error: " << data::printable_lines(message) << '\n';
}

void print_warning(const std::string& message) {
  std::cerr << "shardlab: warning: " << data::printable_lines(message) << '\n';
}

void report_memory_checks_if_asked() {
  const char* asked = std::getenv("SHARDLAB_MEMORY_REPORT");
  if (asked == nullptr || *asked == '\0' || std::string_view(asked) == "0") return;
  planner::set_memory_check_observer([](const planner::MemoryCheck& c) {
    const planner::MemoryBudget& b = c.budget;
    std::cerr << "shardlab: memory: " << data::printable_lines(std::string(c.what))
              << " needs about " << planner::memory_text(c.need_bytes) << "; the process holds "
              << planner::memory_text(b.bytes - b.left) << " of the "
              << planner::memory_text(b.bytes) << " budget (" << b.source << ")\n";
  });
}

namespace {

// The reason of the last failed write on a standard stream: errno when the
// write that failed was this one, else what can still be said.
std::string stream_error() {
  const int err = errno;
  return err != 0 ? std::strerror(err)
                  : std::string("an earlier write failed (a full disk, a closed pipe?)");
}

}  // namespace

Status write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    errno = 0;
    std::cout << text << '\n';
    std::cout.flush();
    if (!std::cout) return Status::io_error("standard output: cannot write: " + stream_error());
    return Status::ok();
  }
  // /dev/stdout and /dev/stderr are written through their descriptors: what
  // the streams hold must go out first.
  std::cout.flush();
  std::cerr.flush();
  std::string line;
  line.reserve(text.size() + 1);
  line.append(text);
  line.push_back('\n');
  return data::write_output_file(path, line);
}

VerbFiles& VerbFiles::input(const std::string& path, std::string role) {
  if (!path.empty()) inputs_.push_back(data::FileRole{.path = path, .role = std::move(role)});
  return *this;
}

VerbFiles& VerbFiles::output(const std::string& path, std::string role) {
  if (!path.empty()) outputs_.push_back(data::FileRole{.path = path, .role = std::move(role)});
  return *this;
}

VerbFiles& VerbFiles::store(const StoreOptions& options) {
  // Whether or not this run records: a store named by --db (or the default
  // one) is never an output's to overwrite.
  return input(resolve_db(options.db).path, "the run store");
}

bool VerbFiles::distinct() const {
  const Status st = data::check_distinct_files(inputs_, outputs_);
  if (st.is_ok()) return true;
  print_error(st.message());
  return false;
}

// A stream buffer that escapes what it is given (data::append_output_safe)
// and hands the result to the stream's own buffer. It holds text until a
// flush or 64 KiB, and a UTF-8 sequence cut by a flush until what follows.
class SafeOutput::Buffer : public std::streambuf {
 public:
  explicit Buffer(std::ostream& stream) : stream_(stream), dest_(stream.rdbuf(this)) {}
  ~Buffer() override {
    drain(/*final=*/true);
    dest_->pubsync();
    stream_.rdbuf(dest_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    pending_.push_back(traits_type::to_char_type(c));
    if (pending_.size() >= kHold && !drain(/*final=*/false)) return traits_type::eof();
    return c;
  }
  // A large write (a plan's JSON) goes through in kHold pieces: the buffer
  // and its escaped copy stay bounded, whatever the document's size.
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::streamsize done = 0;
    while (done < n) {
      const auto piece = std::min<std::streamsize>(n - done, static_cast<std::streamsize>(kHold));
      pending_.append(s + done, static_cast<size_t>(piece));
      done += piece;
      if (pending_.size() >= kHold && !drain(/*final=*/false)) return done - piece;
    }
    return n;
  }
  int sync() override { return drain(/*final=*/false) && dest_->pubsync() == 0 ? 0 : -1; }

 private:
  static constexpr size_t kHold = size_t{64} << 10;

  // Escapes and forwards what is pending; false when the destination failed.
  bool drain(bool final) {
    if (pending_.empty()) return true;
    escaped_.clear();
    const size_t used = data::append_output_safe(escaped_, pending_, final);
    pending_.erase(0, used);
    const auto size = static_cast<std::streamsize>(escaped_.size());
    return dest_->sputn(escaped_.data(), size) == size;
  }

  std::ostream& stream_;
  std::streambuf* dest_;
  std::string pending_;
  std::string escaped_;
};

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// Writes ShardLab's own terminal control sequence to stderr as it is.
void raw_stderr(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, bytes.data(), bytes.size());
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}
}  // namespace

ProgressLine::ProgressLine(double quiet_for_s)
    : tty_(isatty(STDERR_FILENO) == 1), quiet_for_s_(quiet_for_s), start_s_(now_s()) {}

double ProgressLine::elapsed() const { return now_s() - start_s_; }

void ProgressLine::show(const std::string& line) {
  const double t = now_s();
  if (t - start_s_ < quiet_for_s_ || t - last_shown_s_ < interval()) return;
  last_shown_s_ = t;
  if (tty_) {
    // The carriage return and the erase-to-end-of-line are this line's own,
    // written past the output filter (SafeOutput); the text goes through it.
    std::cerr.flush();
    raw_stderr("\r");
    std::cerr << line << std::flush;
    raw_stderr("\x1b[K");
    open_line_ = true;
  } else {
    std::cerr << line << '\n';
  }
}

void ProgressLine::finish() {
  if (open_line_) std::cerr << '\n';
  open_line_ = false;
}

SafeOutput::SafeOutput()
    : out_(std::make_unique<Buffer>(std::cout)), err_(std::make_unique<Buffer>(std::cerr)) {}

SafeOutput::~SafeOutput() = default;

int finish_stdout(int exit_code) {
  errno = 0;
  std::cout.flush();
  if (std::cout) return exit_code;
  print_error("standard output: cannot write: " + stream_error() + "; the output is incomplete");
  return exit_code == kExitOk ? kExitInvalid : exit_code;
}

std::string scenario_name_from_path(const std::string& path) {
  const std::string stem = std::filesystem::path(path).stem().string();
  return stem.empty() ? path : stem;
}

int report_failure(const Status& status, const std::string& json_destination,
                   const std::string& scenario_name, const planner::PlannerResult* result,
                   int indent) {
  print_error(status.message());
  if (!json_destination.empty()) {
    const std::string json = data::error_to_json(scenario_name, status, result, indent);
    if (Status w = write_output(json_destination, json); !w.is_ok()) print_error(w.message());
  }
  return exit_status(status);
}

Result<planner::Scenario> load_scenario_or_report(const std::string& path,
                                                  const std::string& error_out,
                                                  const std::string& torchrec_version) {
  Result<planner::Scenario> loaded = data::load_scenario_file(path);
  if (loaded.is_ok()) {
    if (!torchrec_version.empty()) {
      // The option's check accepts known names only.
      loaded->planner.torchrec_version = planner::parse_torchrec_version(torchrec_version)
                                             .value_or(planner::kLatestTorchRecVersion);
    }
    return loaded;
  }
  Status status = loaded.status();
  // Reading the scenario is input, whatever the cause: exit 2, kInvalidArgument.
  if (status.code() != StatusCode::kInvalidArgument) {
    std::string msg = status.message();
    if (msg.find(shown(path)) == std::string::npos) msg = shown(path) + ": " + msg;
    status = Status::invalid_argument(msg);
  }
  report_failure(status, error_out, scenario_name_from_path(path));
  return status;
}

void VerbRuns::add(const CLI::App* verb, std::function<int()> run) {
  runs_.emplace_back(verb, std::move(run));
}

const CLI::App* parsed_verb(const CLI::App& app) {
  const CLI::App* verb = &app;
  for (auto subs = verb->get_subcommands(); !subs.empty(); subs = verb->get_subcommands())
    verb = subs.front();
  return verb;
}

int VerbRuns::run_parsed(const CLI::App& app) const {
  // The innermost verb's run, else its parent's (presets runs presets show).
  for (const CLI::App* verb = parsed_verb(app); verb != nullptr; verb = verb->get_parent()) {
    for (const auto& [registered, run] : runs_) {
      if (registered == verb) return run();
    }
  }
  return kExitInvalid;
}

// ---- Shared options ----------------------------------------------------------

CLI::Option* add_scenario_argument(CLI::App* cmd, std::string* path) {
  return cmd->add_option("scenario", *path, "Scenario file (JSON, docs/scenario-format.md)")
      ->required();
}

CLI::Option* add_output_option(CLI::App* cmd, std::string* path, const std::string& what,
                               const std::string& default_text) {
  return cmd
      ->add_option(
          "-o,--output", *path,
          "Write " + what +
              " to FILE: atomically over a file (a temporary file beside it, then a rename; a "
              "symbolic link's target is replaced, not the link), straight through to a device "
              "or pipe; '-' is stdout. Never the same file as an input (docs/outputs.md) "
              "(default: " +
              default_text + ")")
      ->type_name("FILE");
}

CLI::Option* add_quiet_flag(CLI::App* cmd, bool* quiet, const std::string& what) {
  return cmd->add_flag("-q,--quiet", *quiet, "Do not print " + what + " (default: off)");
}

CLI::Option* add_compact_flag(CLI::App* cmd, bool* compact) {
  return cmd->add_flag("--compact", *compact,
                       "Write JSON on one line instead of indented (default: off)");
}

namespace {

// `min` or `max` for messages: integers without a fraction, others as %g.
std::string bound_text(double v) {
  if (std::trunc(v) == v && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:g}", v);
}

// A validator that parses the option's text as a number (leaving text that
// is no number to the option's own conversion error) and applies `check`,
// which returns "" or what is wrong.
CLI::Validator number_check(std::string description, std::string (*check)(double, double, double),
                            double lo, double hi) {
  return CLI::Validator(
      [check, lo, hi](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        const double v = std::strtod(begin, &end);
        if (end == begin || *end != '\0') return std::string();  // not a number: CLI11 says so
        if (!std::isfinite(v)) return shown(text) + " is not a finite number";
        const std::string wrong = check(v, lo, hi);
        return wrong.empty() ? std::string() : shown(text) + " " + wrong;
      },
      std::move(description));
}

}  // namespace

CLI::Validator number_at_least(double min) {
  return number_check(
      ">= " + bound_text(min),
      [](double v, double lo, double) {
        return v >= lo ? std::string() : "is below " + bound_text(lo);
      },
      min, 0.0);
}

CLI::Validator number_above(double min) {
  return number_check(
      "> " + bound_text(min),
      [](double v, double lo, double) {
        return v > lo ? std::string() : "is not above " + bound_text(lo);
      },
      min, 0.0);
}

CLI::Validator number_in_range(double min, double max) {
  return number_check(
      bound_text(min) + ".." + bound_text(max),
      [](double v, double lo, double hi) {
        return v >= lo && v <= hi ? std::string()
                                  : "is not in " + bound_text(lo) + ".." + bound_text(hi);
      },
      min, max);
}

CLI::Validator number_other_than(double excluded, const std::string& reason) {
  CLI::Validator v = number_check(
      "!= " + bound_text(excluded),
      [](double v, double x, double) { return v != x ? std::string() : "is not allowed"; },
      excluded, 0.0);
  if (reason.empty()) return v;
  // The reason follows the check's own words.
  return CLI::Validator(
      [v, reason](std::string& text) -> std::string {
        const std::string wrong = v(text);
        return wrong.empty() ? wrong : wrong + ": " + reason;
      },
      "!= " + bound_text(excluded));
}

CLI::Validator run_id_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int64_t id = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
        if (!text.empty() && ec == std::errc() && end == text.data() + text.size() && id >= 1)
          return std::string();
        return data::quoted(text) +
               " is not a run id (a whole number >= 1; 'shardlab runs list' "
               "shows the ids)";
      },
      "ID");
}

void add_old_spelling(CLI::App* cmd, const std::string& old_name, const std::string& new_name,
                      std::string* value) {
  cmd->add_option(old_name, *value)
      ->group("")  // not in --help
      ->each([old_name, new_name](const std::string&) {
        std::cerr << "shardlab: note: " << old_name << " is the old spelling of " << new_name
                  << "; it keeps working\n";
      });
}

void refuse_empty_values(CLI::App& app) {
  const CLI::Validator non_empty(
      [](std::string& text) -> std::string {
        return text.empty() ? "\"\" is empty: give a value, or leave the option out for its default"
                            : std::string();
      },
      "");
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_size() != 0) opt->check(non_empty);
  }
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    refuse_empty_values(*sub);
  }
}

CLI::Validator finite_number() {
  return number_check(
      "finite", [](double, double, double) { return std::string(); }, 0.0, 0.0);
}

CLI::Option* add_torchrec_version_option(CLI::App* cmd, std::string* version) {
  std::vector<std::string> names;
  for (planner::TorchRecVersion v : planner::all_torchrec_versions())
    names.emplace_back(planner::to_string(v));
  return cmd
      ->add_option(
          "--torchrec-version", *version,
          "Which TorchRec planner to reproduce: 2024-02 (commit fe1c2824) or 2026-08 (commit "
          "376cac6a); see docs/torchrec-versions.md (default: the scenario's "
          "planner.torchrec_version, else 2026-08)")
      ->check(CLI::IsMember(names))
      ->type_name("VERSION");
}

Result<std::vector<int64_t>> parse_id_list(const std::string& text, const IdListSpec& spec) {
  constexpr int64_t kMaxListed = 1000000;
  const auto number = [&](std::string_view s, int64_t* out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size() && *out >= spec.minimum;
  };
  // Each item is checked against [minimum, maximum]; the ranges are merged
  // and their ids counted before any is expanded.
  std::vector<std::pair<int64_t, int64_t>> ranges;
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
      return Status::invalid_argument(fmt::format(
          "{}: {} is not a {} or a range FIRST-LAST of {}s >= {} (e.g. {} 3,5-7)", spec.option,
          data::quoted(part), spec.what, spec.what, spec.minimum, spec.option));
    }
    if (last > spec.maximum) {
      return Status::invalid_argument(
          fmt::format("{}: {} {} is not in {}..{}{}", spec.option, spec.what, last, spec.minimum,
                      spec.maximum, spec.range_note.empty() ? "" : " (" + spec.range_note + ")"));
    }
    ranges.emplace_back(first, last);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  int64_t count = 0;
  for (const auto& [lo, hi] : ranges) {
    const bool overlaps = !merged.empty() && lo <= merged.back().second;
    if (overlaps && hi <= merged.back().second) continue;
    // New ids of this range, less one; no overflow: ids are >= minimum >= 0,
    // hi >= lo, and an overlapping range adds hi - previous end >= 1 ids.
    const int64_t added_less_one = overlaps ? hi - merged.back().second - 1 : hi - lo;
    if (added_less_one >= kMaxListed - count) {
      return Status::invalid_argument(fmt::format("{}: names more than {} {}s (at {})", spec.option,
                                                  kMaxListed, spec.what,
                                                  data::quoted(fmt::format("{}-{}", lo, hi))));
    }
    count += added_less_one + 1;
    if (overlaps) {
      merged.back().second = hi;
    } else {
      merged.emplace_back(lo, hi);
    }
  }
  std::vector<int64_t> ids;
  ids.reserve(static_cast<size_t>(count));
  for (const auto& [lo, hi] : merged) {
    // Stops at hi without stepping past it: hi may be the largest int64_t.
    for (int64_t id = lo;; ++id) {
      ids.push_back(id);
      if (id == hi) break;
    }
  }
  return ids;
}

std::string example_footer(const std::string& lines) { return "\nExample:\n" + lines; }

}  // namespace shardlab::cli
