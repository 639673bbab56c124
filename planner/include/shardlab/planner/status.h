// Status and Result<T>: expected failures are values.
//
// A Status is either ok or carries an error code and a human-readable message.
// Result<T> holds either a T or a non-ok Status. Both are cheap to move and
// [[nodiscard]], so an ignored failure is a compiler warning.
//
// Error codes say what failed; front ends decide what each means to their
// user (the command line maps them to exit statuses once, in cli/):
//   kInvalidArgument  an input breaks a rule: a scenario, plan or profile
//                     field, an option value, a limit or a memory budget
//   kNotFound         what was asked for is not there: a file, a run, an
//                     open scenario
//   kCorrupt          stored data ShardLab wrote is damaged (a run store
//                     that fails its checks)
//   kPlanner          planning failed; the PlannerErrorType says how
//   kIo               a file or stream could not be read or written
//   kUnavailable      something this host or build lacks: a device, a driver,
//                     a library, support for a newer run store schema
//   kInternal         a broken invariant: a bug in ShardLab
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace shardlab {

enum class StatusCode {
  kOk,
  kInvalidArgument,
  kNotFound,
  kCorrupt,
  kPlanner,
  kIo,
  kInternal,
  kUnavailable
};

// TorchRec's PlannerErrorType values, plus kNoOptions: a table left with no
// sharding option after constraints (TorchRec raises a plain RuntimeError).
enum class PlannerErrorType {
  kInsufficientStorage,
  kStrictConstraints,
  kPartition,
  kOther,
  kNoOptions
};

// "insufficient_storage", "strict_constraints", "partition", "other", "no_options".
const char* to_string(PlannerErrorType t);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok

  static Status ok() { return Status(); }
  static Status invalid_argument(std::string msg) {
    return Status(StatusCode::kInvalidArgument, std::move(msg));
  }
  static Status planner(PlannerErrorType type, std::string msg) {
    Status s(StatusCode::kPlanner, std::move(msg));
    s.planner_error_ = type;
    return s;
  }
  static Status not_found(std::string msg) { return Status(StatusCode::kNotFound, std::move(msg)); }
  static Status corrupt(std::string msg) { return Status(StatusCode::kCorrupt, std::move(msg)); }
  static Status io_error(std::string msg) { return Status(StatusCode::kIo, std::move(msg)); }
  static Status internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }
  static Status unavailable(std::string msg) {
    return Status(StatusCode::kUnavailable, std::move(msg));
  }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Meaningful only when code() == kPlanner.
  PlannerErrorType planner_error() const { return planner_error_; }

  // Returns a copy whose message is prefixed with `context + ": "`.
  Status with_context(const std::string& context) const {
    if (is_ok()) return *this;
    Status s(code_, context + ": " + message_);
    s.planner_error_ = planner_error_;
    return s;
  }

 protected:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  PlannerErrorType planner_error_ = PlannerErrorType::kOther;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.is_ok() && "a Result built from a Status must carry an error");
  }

  bool is_ok() const { return value_.has_value(); }
  explicit operator bool() const { return is_ok(); }
  const Status& status() const { return status_; }

  // REQUIRES: is_ok()
  T& value() & {
    assert(is_ok());
    return *value_;
  }
  const T& value() const& {
    assert(is_ok());
    return *value_;
  }
  T&& value() && {
    assert(is_ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace shardlab

// Returns `expr` (a Status) from the enclosing function when it is an error.
#define SHARDLAB_RETURN_IF_ERROR(expr)                                     \
  do {                                                                     \
    if (::shardlab::Status shardlab_status_ = (expr); !shardlab_status_) { \
      return shardlab_status_;                                             \
    }                                                                      \
  } while (false)
