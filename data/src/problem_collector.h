// Collecting a document's problems instead of stopping at the first
// (shardlab validate). While a ProblemCollector is alive on a thread, the
// readers of that thread record what they would have returned and carry on:
// a member that does not convert (ObjectReader::read, left at its default),
// a missing required member (ObjectReader::require), an unknown key (the
// parser's schema check and ObjectReader::check). Every other error still
// stops the reading; the caller decides what to make of it.
//
// Thread safety: one collector per thread, nested ones hide the outer one
// until they end. Not copyable.
#pragma once

#include <vector>

#include "shardlab/planner/status.h"

namespace shardlab::data::internal {

class ProblemCollector {
 public:
  ProblemCollector();
  ~ProblemCollector();
  ProblemCollector(const ProblemCollector&) = delete;
  ProblemCollector& operator=(const ProblemCollector&) = delete;

  // With a collector alive on this thread: records `problem` (once: a
  // message seen before is not recorded again) and returns ok. Without one:
  // returns `problem`.
  static Status note(Status problem);

  // What was recorded, in the order found.
  const std::vector<Status>& problems() const { return problems_; }

 private:
  ProblemCollector* outer_;
  std::vector<Status> problems_;
};

}  // namespace shardlab::data::internal
