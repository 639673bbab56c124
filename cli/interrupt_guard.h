// Ctrl-C for a verb whose long work stops at a flag and keeps what it has
// (optimize's best plan, compare's finished rows): while the guard lives,
// SIGINT sets the flag and writes the verb's note to stderr (write(2) is
// async-signal-safe); SA_RESETHAND gives a second Ctrl-C its default effect
// (terminate). Install it before anything long runs.
#pragma once

#include <atomic>

namespace shardlab::cli {

class InterruptGuard {
 public:
  // `note` (a string literal: it must outlive the guard) says what Ctrl-C does.
  explicit InterruptGuard(const char* note);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // True once Ctrl-C came; the flag the verb's work polls.
  static const std::atomic<bool>* flag();
};

}  // namespace shardlab::cli
