// How much memory a run may use, and the check each component makes with
// its own estimate before its large allocations (docs/scenario-format.md
// "Memory"). A run that would not fit is refused with a message naming what
// needs the memory, instead of dying of std::bad_alloc halfway.
//
// The budget is the smallest of:
//   - SHARDLAB_MEMORY_BUDGET when set: bytes, or a size such as "4 GiB"
//     (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), else the machine's physical
//     memory, and the cgroup memory limit where one is set;
//   - the address-space and data-segment limits (RLIMIT_AS, RLIMIT_DATA),
//     against the process's virtual and data size.
// What is left is the budget minus what the process holds now (resident
// size, or virtual / data size for those limits).
//
// Thread safety: all functions may be called from any thread; the budget is
// read from the environment and the system once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "shardlab/planner/status.h"

namespace shardlab::planner {

inline constexpr const char* kMemoryBudgetVariable = "SHARDLAB_MEMORY_BUDGET";

struct MemoryBudget {
  int64_t bytes = 0;   // the budget of the limit that binds now
  int64_t left = 0;    // bytes it leaves for new allocations, >= 0
  std::string source;  // what sets it, for messages ("physical memory", "RLIMIT_AS", ...)
};

// The budget now. An unreadable SHARDLAB_MEMORY_BUDGET is kInvalidArgument
// naming the variable and its value.
Result<MemoryBudget> memory_budget();

// ok when `need_bytes` more fit in what is left of the budget; otherwise
// kInvalidArgument: "<what> needs about X, more than the Y left of the
// memory budget (Z, <source>); <remedy>", sizes in binary units.
// `remedy` says what would make it fit (e.g. "plan fewer tables or ranks").
Status check_memory(std::string_view what, int64_t need_bytes, std::string_view remedy);

// One check_memory() call as made: what needs the memory, its estimate, and
// the budget it met (bytes - left is what the process held then).
struct MemoryCheck {
  std::string_view what;
  int64_t need_bytes = 0;
  MemoryBudget budget;
};

// Calls `observer` with every check_memory() made from now on (any thread;
// the observer must be reentrant), before its verdict; an empty function
// stops it. For diagnostics: SHARDLAB_MEMORY_REPORT makes the CLI print
// each check (docs/scenario-format.md "Memory"). Set it before checks run.
void set_memory_check_observer(std::function<void(const MemoryCheck&)> observer);

// "3.20 GiB", "512 B": a byte count for messages.
std::string memory_text(int64_t bytes);

}  // namespace shardlab::planner
