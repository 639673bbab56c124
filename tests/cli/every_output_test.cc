// No verb writes over one of its inputs, whichever output and whichever input:
// the verbs, their output options and their file inputs are read from the
// binary's own --help, so a new verb, output or input is covered without
// anyone adding it here. Each (output, input) pair runs with the output's path
// on the input; the verb must refuse with exit 2 ("is the same file as") and
// leave the input byte for byte as it was.
//
// What --help is read for: a verb's "Subcommands:" (sub-verbs are verbs too);
// its "Positionals:" (scenario, plan and PATH are file inputs; INT ones get an
// id, `name` a preset's); its "Options:" of type FILE whose description begins "Write" or "Also
// write" (outputs), and the other options of type FILE, PROFILE or PATH
// (inputs). An option that "Needs:" others is given with them (each a file of
// its own when it takes one).
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_fixture.h"

namespace {

using namespace shardlab_cli_test;

struct Spec {
  std::string name;  // "-o,--output", "scenario"
  std::string type;  // "FILE", "TEXT", "INT:ID"
  std::string description;
  std::vector<std::string> needs;  // "Needs: --from-trace": options it is given only with
};

struct Verb {
  std::vector<std::string> words;  // {"runs", "export"}
  std::vector<Spec> positionals;
  std::vector<Spec> options;
};

bool is_type(const std::string& t) {
  if (t.empty() || !(t[0] >= 'A' && t[0] <= 'Z')) return false;
  for (char c : t.substr(0, t.find(':'))) {
    if (c >= 'a' && c <= 'z') return false;
  }
  return true;
}

// The specs of one section ("Positionals:", "Options:", "Subcommands:").
std::vector<Spec> section(const std::string& help, const std::string& title) {
  std::vector<Spec> out;
  const std::size_t at = help.find("\n" + title + "\n");
  if (at == std::string::npos) return out;
  std::istringstream lines(help.substr(at + title.size() + 2));
  std::string line;
  while (std::getline(lines, line) && !line.empty()) {
    // "  --plan FILE                 Description": the spec, then two spaces or
    // more, then the description (on the next line when the spec is long).
    if (line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ') continue;
    const std::string body = line.substr(2);
    const std::size_t gap = body.find("  ");
    std::istringstream spec(body.substr(0, gap));
    Spec s;
    spec >> s.name;
    std::string second;
    if (spec >> second && is_type(second)) s.type = second;
    for (std::string word = second; !spec.fail(); spec >> word) {
      if (word == "Needs:") {
        while (spec >> word && word.rfind("--", 0) == 0) s.needs.push_back(word);
        break;
      }
    }
    if (gap != std::string::npos) {
      const std::size_t text = body.find_first_not_of(' ', gap);
      if (text != std::string::npos) s.description = body.substr(text);
    }
    out.push_back(s);
  }
  return out;
}

bool is_output(const Spec& s) {
  return s.type == "FILE" &&
         (s.description.rfind("Write", 0) == 0 || s.description.rfind("Also write", 0) == 0);
}

bool is_file_input(const Spec& s, bool positional) {
  if (positional) return s.name == "scenario" || s.name == "plan" || s.name == "PATH";
  return !is_output(s) && (s.type == "FILE" || s.type == "PROFILE" || s.type == "PATH");
}

// Values of the positionals that are not files: ids, and names of built-in data.
std::string value_of(const Spec& s) {
  if (s.type.rfind("INT", 0) == 0 || s.type == "IDS") return "1";  // an id, or a list of ids
  if (s.name == "name") return "h100-sxm";                         // presets show NAME
  if (s.name == "text") return "a-label";                          // runs label ID TEXT
  return std::string();
}

std::string first_name(const std::string& names) {
  const std::size_t comma = names.find(',');
  return comma == std::string::npos ? names : names.substr(comma + 1);
}

const Spec* option_named(const std::vector<Spec>& options, const std::string& name) {
  for (const Spec& s : options) {
    if (first_name(s.name) == name) return &s;
  }
  return nullptr;
}

class EveryOutputTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    ::setenv("SHARDLAB_NO_RECORD", "1", 1);
  }

  // The options `spec` needs, before it in `args` (and theirs before them).
  void add_needs(const Verb& verb, const Spec& spec, std::vector<std::string>& args) {
    for (const std::string& name : spec.needs) {
      const Spec* need = option_named(verb.options, name);
      ASSERT_NE(need, nullptr) << spec.name << " needs " << name << ", which --help does not list";
      add_needs(verb, *need, args);
      args.push_back(name);
      if (!need->type.empty()) args.push_back(write(name.substr(2) + ".need", "{}\n"));
    }
  }

  std::string help(const std::vector<std::string>& words) {
    std::vector<std::string> args = words;
    args.push_back("--help");
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  std::vector<Verb> verbs() {
    std::vector<Verb> out;
    for (const Spec& top : section(help({}), "Subcommands:")) {
      const std::string text = help({top.name});
      const std::vector<Spec> subs = section(text, "Subcommands:");
      std::vector<std::vector<std::string>> names;
      if (subs.empty()) names.push_back({top.name});
      for (const Spec& sub : subs) names.push_back({top.name, sub.name});
      for (const auto& words : names) {
        const std::string h = words.size() == 1 ? text : help(words);
        out.push_back({words, section(h, "Positionals:"), section(h, "Options:")});
      }
    }
    return out;
  }
};

TEST_F(EveryOutputTest, NoVerbWritesOverAnyOfItsInputs) {
  const std::vector<Verb> all = verbs();
  ASSERT_GE(all.size(), 15u);  // plan ... trace summarize
  int pairs = 0;
  std::map<std::string, int> outputs_seen;
  for (const Verb& verb : all) {
    std::string who;
    for (const std::string& w : verb.words) who += (who.empty() ? "" : " ") + w;
    std::vector<const Spec*> outputs;
    struct Input {
      const Spec* spec;
      bool positional;
    };
    std::vector<Input> inputs;
    for (const Spec& s : verb.options) {
      if (is_output(s)) outputs.push_back(&s);
      if (is_file_input(s, false)) inputs.push_back({&s, false});
    }
    for (const Spec& s : verb.positionals) {
      if (is_file_input(s, true)) {
        inputs.push_back({&s, true});
      } else {
        ASSERT_FALSE(value_of(s).empty())
            << who << ": positional " << s.name << " (" << s.type
            << ") is neither a known file nor a known value: teach this test what it is";
      }
    }
    for (const Spec* out : outputs) {
      outputs_seen[who] += 1;
      for (const Input& in : inputs) {
        // Every file input gets its own file; the positionals are always given.
        std::vector<std::string> args = verb.words;
        std::map<std::string, std::string> files;
        for (const Spec& p : verb.positionals) {
          if (is_file_input(p, true)) {
            args.push_back(write(p.name + ".in", "{\"input\": \"" + p.name + "\"}\n"));
            files[p.name] = args.back();
          } else {
            args.push_back(value_of(p));
          }
        }
        std::string target;
        if (in.positional) {
          target = files.at(in.spec->name);
        } else {
          add_needs(verb, *in.spec, args);
          const std::string option = first_name(in.spec->name);
          target = write(option.substr(2) + ".in", "{\"input\": \"" + option + "\"}\n");
          args.push_back(option);
          args.push_back(target);
        }
        const std::string before = read_file(target);
        args.push_back(first_name(out->name));
        args.push_back(target);
        const CliRun r = run(args);
        const std::string what = who + " " + first_name(out->name) + " over " + in.spec->name;
        EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
        EXPECT_NE(r.err.find("is the same file as"), std::string::npos) << what << ": " << r.err;
        EXPECT_EQ(read_file(target), before) << what;
        ++pairs;
      }
    }
  }
  // The verbs known to write files are all found (a parsing regression would
  // otherwise pass with nothing checked).
  for (const char* v : {"plan", "simulate", "compare", "optimize", "replay", "calibrate", "sweep",
                        "options", "runs export", "trace summarize"}) {
    EXPECT_GT(outputs_seen[v], 0) << v;
  }
  EXPECT_GE(outputs_seen["simulate"], 2) << "-o and --trace";
  EXPECT_GE(pairs, 25);
}

}  // namespace
