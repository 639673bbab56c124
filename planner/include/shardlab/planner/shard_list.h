// The shards of a sharding option, kept by the formula that makes them.
//
// A row-wise or data-parallel option has one shard per rank, but its shards
// differ only in their offsets: row-wise shards are blocks of ceil(rows / W)
// rows at offsets 0, block, 2·block, ..., then one short block and empty
// shards; data-parallel shards are W copies of the table. A ShardList keeps
// shards as runs of shards equal but for offsets that step evenly, so an
// option's memory grows with its runs, not with the world size: a row-wise
// or table-row-wise option is at most three runs, a data-parallel or
// column-wise option one, a grid option three per column block
// (docs/cost-model.md §3 "Shards").
//
// Shards are read by value (operator[], iteration): offsets are computed, not
// stored. storage(i) reads the run's storage in place. Every shard of a run
// has the same rows, columns and storage, so storage is set per run
// (set_storage), never per shard.
//
// Cost: size(), empty(), runs() O(1); operator[], storage(i) O(runs);
// iteration O(1) per shard; append O(1). Thread safety: const methods are
// reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <span>
#include <vector>

#include "shardlab/planner/types.h"

namespace shardlab::planner {

// 48 bytes: columns are 32-bit (embedding_dim is at most kMaxEmbeddingDim,
// limits.h).
struct Shard {
  int64_t rows = 0;
  int64_t row_offset = 0;
  int32_t cols = 0;
  int32_t col_offset = 0;
  Storage storage;

  bool operator==(const Shard&) const = default;
};
static_assert(sizeof(Shard) == 48);

class ShardList {
 public:
  // `count` shards equal to `first` but for their offsets: shard k of the run
  // starts at first.row_offset + k·row_step rows and first.col_offset +
  // k·col_step columns.
  struct Run {
    Shard first;
    int64_t count = 0;
    int64_t row_step = 0;
    int32_t col_step = 0;

    Shard at(int64_t k) const {
      Shard s = first;
      s.row_offset += k * row_step;
      s.col_offset += static_cast<int32_t>(k) * col_step;
      return s;
    }
  };

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Shard;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Shard;

    Iterator() = default;
    Shard operator*() const { return run_->at(k_); }
    Iterator& operator++() {
      if (++k_ == run_->count) {
        ++run_;
        k_ = 0;
      }
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const Iterator&) const = default;

   private:
    friend class ShardList;
    Iterator(const Run* run, int64_t k) : run_(run), k_(k) {}
    const Run* run_ = nullptr;
    int64_t k_ = 0;
  };

  ShardList() = default;
  ShardList(std::initializer_list<Shard> shards);

  // Appends `count` shards (a run as above; count >= 1), continuing the last
  // run when the new shards extend it.
  void append(const Shard& first, int64_t count = 1, int64_t row_step = 0, int32_t col_step = 0);
  void push_back(const Shard& shard) { append(shard); }
  void clear() {
    runs_.clear();
    size_ = 0;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // REQUIRES: i < size().
  Shard operator[](size_t i) const;
  const Storage& storage(size_t i) const { return run_of(i).first.storage; }
  Shard front() const { return runs_.front().first; }
  Shard back() const { return runs_.back().at(runs_.back().count - 1); }

  std::span<const Run> runs() const { return runs_; }
  // Sets each run's storage to f(the run's first shard): storage depends on a
  // shard's rows and columns, which a run's shards share.
  template <class F>
  void set_storage(F&& f) {
    for (Run& r : runs_) r.first.storage = f(static_cast<const Shard&>(r.first));
  }

  Iterator begin() const { return Iterator(runs_.data(), 0); }
  Iterator end() const { return Iterator(runs_.data() + runs_.size(), 0); }

  // Equal shards in the same order (however they were appended).
  bool operator==(const ShardList& other) const;

 private:
  const Run& run_of(size_t& i) const;

  std::vector<Run> runs_;
  size_t size_ = 0;
};

}  // namespace shardlab::planner
