#include "shardlab/planner/shard_list.h"

#include <cassert>

namespace shardlab::planner {
namespace {

// Everything but the offsets.
bool same_shape(const Shard& a, const Shard& b) {
  return a.rows == b.rows && a.cols == b.cols && a.storage == b.storage;
}

}  // namespace

ShardList::ShardList(std::initializer_list<Shard> shards) {
  for (const Shard& s : shards) append(s);
}

void ShardList::append(const Shard& first, int64_t count, int64_t row_step, int32_t col_step) {
  assert(count >= 1);
  size_ += static_cast<size_t>(count);
  if (!runs_.empty()) {
    Run& last = runs_.back();
    if (same_shape(last.first, first)) {
      // The offsets from the last run's last shard to the new first one.
      const Shard tail = last.at(last.count - 1);
      const int64_t rows_to = first.row_offset - tail.row_offset;
      const int32_t cols_to = first.col_offset - tail.col_offset;
      if (last.count == 1 && (count == 1 || (rows_to == row_step && cols_to == col_step))) {
        last.row_step = rows_to;
        last.col_step = cols_to;
        last.count += count;
        return;
      }
      if (rows_to == last.row_step && cols_to == last.col_step &&
          (count == 1 || (row_step == last.row_step && col_step == last.col_step))) {
        last.count += count;
        return;
      }
    }
  }
  runs_.push_back(Run{first, count, count == 1 ? 0 : row_step, count == 1 ? 0 : col_step});
}

const ShardList::Run& ShardList::run_of(size_t& i) const {
  assert(i < size_);
  const Run* r = runs_.data();
  while (i >= static_cast<size_t>(r->count)) {
    i -= static_cast<size_t>(r->count);
    ++r;
  }
  return *r;
}

Shard ShardList::operator[](size_t i) const {
  const Run& r = run_of(i);
  return r.at(static_cast<int64_t>(i));
}

bool ShardList::operator==(const ShardList& other) const {
  if (size_ != other.size_) return false;
  Iterator a = begin();
  Iterator b = other.begin();
  for (; a != end(); ++a, ++b) {
    if (!(*a == *b)) return false;
  }
  return true;
}

}  // namespace shardlab::planner
