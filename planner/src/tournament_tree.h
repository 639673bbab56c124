// A min tournament tree over items 0..n-1 whose keys live with the caller.
// Private to the planner library.
//
// The greedy partitioner asks "which device (host) has the smallest key"
// once per shard (option), and the greedy proposer "which table has the
// largest storage" once per proposal, while only one or a few keys change in
// between: the tree answers in O(1) and absorbs a change in O(log n). Keys
// may change in bursts (a host placement touches a whole host's devices), so
// changed leaves are marked and the tree is brought up to date only when
// queried.
//
// `Less` must be a strict total order on 0..n-1 (every key here ends in the
// item index), which makes the minimum unique: the tree returns exactly what
// a scan for the smallest key would.
#pragma once

#include <cstdint>
#include <vector>

namespace shardlab::planner {

template <typename Less>
class TournamentTree {
 public:
  // Builds the tree over items 0..n-1; every item takes part.
  void build(int n, const Less& less) {
    n_ = n;
    size_ = 1;
    while (size_ < n) size_ *= 2;
    node_.assign(2 * static_cast<size_t>(size_), n);  // n: the empty sentinel
    for (int i = 0; i < n; ++i) node_[size_ + i] = i;
    for (int i = size_ - 1; i >= 1; --i) recompute(i, less);
    stamp_.assign(2 * static_cast<size_t>(size_), 0);
    full_sync_ = static_cast<size_t>(size_) / 4;
    epoch_ = 0;
    dirty_.clear();
  }

  // Records that item i's key changed (or that it leaves or rejoins). Past
  // the point where sync() recomputes every node, marks are not recorded.
  void mark(int i) {
    if (dirty_.size() <= full_sync_) dirty_.push_back(size_ + i);
  }

  // mark() for items [begin, begin + n).
  void mark_range(int begin, int n) {
    for (int i = begin; i < begin + n && dirty_.size() <= full_sync_; ++i) dirty_.push_back(size_ + i);
  }

  // Takes item i out of the competition until restore(i). Marks it.
  void exclude(int i) {
    node_[size_ + i] = n_;
    mark(i);
  }
  void restore(int i) {
    node_[size_ + i] = i;
    mark(i);
  }

  // The item with the smallest key after bringing the tree up to date, or n
  // when every item is excluded.
  int min(const Less& less) {
    if (!dirty_.empty()) sync(less);
    return node_[1];
  }

 private:
  void recompute(int i, const Less& less) {
    const int a = node_[2 * i];
    const int b = node_[2 * i + 1];
    node_[i] = b == n_ || (a != n_ && less(a, b)) ? a : b;
  }

  // Recomputes the ancestors of the marked leaves, one level at a time so a
  // node shared by several of them is recomputed once. Past a quarter of the
  // leaves, recomputing every node is cheaper.
  void sync(const Less& less) {
    if (dirty_.size() > full_sync_) {
      for (int i = size_ - 1; i >= 1; --i) recompute(i, less);
      dirty_.clear();
      return;
    }
    if (dirty_.size() == 1) {  // the common case: one leaf's path
      for (int i = dirty_.front() / 2; i >= 1; i /= 2) recompute(i, less);
      dirty_.clear();
      return;
    }
    while (dirty_.front() > 1) {
      ++epoch_;
      size_t kept = 0;
      for (const int node : dirty_) {
        const int parent = node / 2;
        if (stamp_[parent] == epoch_) continue;
        stamp_[parent] = epoch_;
        recompute(parent, less);
        dirty_[kept++] = parent;
      }
      dirty_.resize(kept);
    }
    dirty_.clear();
  }

  int n_ = 0;
  int size_ = 1;              // leaves, a power of two
  std::vector<int> node_;     // node_[size_ + i] = i (or n_), node_[k] = min of its children
  std::vector<int> dirty_;    // marked nodes of one level, all at the same depth
  size_t full_sync_ = 0;      // more marks than this: recompute every node
  std::vector<uint32_t> stamp_;
  uint32_t epoch_ = 0;
};

}  // namespace shardlab::planner
