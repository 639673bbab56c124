// The hostile-input suite: every field of the scenario, plan and calibration
// profile formats, set in turn to overflowing, non-finite, huge and
// wrong-typed values, then read and run as far as it goes (load, plan,
// simulate; read a plan file and simulate it; read a profile and plan with
// it). Whatever comes out must be a clean outcome: a result with finite
// numbers and no negative byte count, or an error Status that is not an
// internal error, with a one-line printable message. A crash, a sanitizer
// report (the suite runs under ASan + UBSan in CI) or an escaped exception
// fails the suite.
//
// The field lists are data: a field added to a format gets a line in its
// list (coverage_test.cc checks that every key the readers accept has one).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../sanitized_build.h"
#include "shardlab/planner/status.h"

namespace shardlab::hostile {

using Json = nlohmann::ordered_json;

// A field of a document, set to each hostile value in turn.
struct Field {
  std::string pointer;  // JSON pointer into the base document, e.g. "/topology/world_size"
  std::vector<std::string> extras;  // values worth trying for this field only (JSON text)
  std::string patch;                // JSON merge patch applied to the base first ("" for none)
};

// Hostile values (JSON text; some deliberately malformed), tried in every field.
const std::vector<std::string>& hostile_values();

// The base documents: each valid, each exercising every field of its format.
const Json& base_scenario();
// The scenario the plan documents are for (table t0 row-wise, t1 table-wise).
const Json& plan_scenario();
const Json& base_profile();

const std::vector<Field>& scenario_fields();
const std::vector<Field>& torchrec_plan_fields();  // against the TorchRec-shaped plan
const std::vector<Field>& shardlab_plan_fields();  // against ShardLab's plan
const std::vector<Field>& profile_fields();

// `base` with `field` set to `value` (raw JSON text, spliced in as written).
std::string with_value(const Json& base, const Field& field, const std::string& value);

// Checks one document end to end with gtest expectations (callers add a
// SCOPED_TRACE naming the field and value).
void check_scenario_text(const std::string& text);
void check_plan_text(const std::string& text);     // for plan_scenario()
void check_profile_text(const std::string& text);  // planned with base_scenario()

// The memory budget every hostile run gets (SHARDLAB_MEMORY_BUDGET, set for
// the suite's process unless already set): large enough for every run the
// base documents allow, small enough that a value inflating a run to
// gigabytes is refused by the estimates instead of run.
inline constexpr const char* kSuiteMemoryBudget = "1 GiB";
inline constexpr long kSuiteMemoryBudgetBytes = 1L << 30;

// True in builds with AddressSanitizer, whose shadow memory and quarantine
// make resident-size checks meaningless.
using test_support::sanitized_build;

// Expectations every error Status meets: not internal, a message that names
// `origin` (when not empty) on one printable line of bounded length.
void expect_clean_error(const Status& status, const std::string& origin);

}  // namespace shardlab::hostile
