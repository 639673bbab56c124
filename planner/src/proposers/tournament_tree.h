// A min tournament tree over items 0..n-1 whose keys live with the caller.
// Private to the proposers.
//
// The greedy proposer asks, after every proposal, which table has the
// largest storage key, while only the table it just advanced changed: the
// tree answers in O(1) and absorbs a change in O(log n), where a scan over
// every table was O(n). Changed leaves are marked and the tree is brought up
// to date only when queried.
//
// `Less` must be a strict total order on 0..n-1 (the key ends in the item
// index), which makes the minimum unique: the tree returns exactly what a
// scan for the smallest key would.
#pragma once

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
    dirty_.clear();
    all_dirty_ = false;
  }

  // Records that item i's key changed.
  void mark(int i) {
    if (dirty_.empty()) {
      dirty_.push_back(size_ + i);
    } else {
      all_dirty_ = true;  // several changes: recompute everything once
    }
  }

  // Takes item i out of the competition for good. Marks it.
  void exclude(int i) {
    node_[size_ + i] = n_;
    mark(i);
  }

  // The item with the smallest key after bringing the tree up to date, or n
  // when every item is excluded.
  int min(const Less& less) {
    if (all_dirty_) {
      for (int i = size_ - 1; i >= 1; --i) recompute(i, less);
    } else if (!dirty_.empty()) {
      for (int i = dirty_.front() / 2; i >= 1; i /= 2) recompute(i, less);
    }
    dirty_.clear();
    all_dirty_ = false;
    return node_[1];
  }

 private:
  void recompute(int i, const Less& less) {
    const int a = node_[2 * i];
    const int b = node_[2 * i + 1];
    node_[i] = b == n_ || (a != n_ && less(a, b)) ? a : b;
  }

  int n_ = 0;
  int size_ = 1;            // leaves, a power of two
  std::vector<int> node_;   // node_[size_ + i] = i (or n_), node_[k] = min of its children
  std::vector<int> dirty_;  // the one marked leaf since the last min()
  bool all_dirty_ = false;  // more than one
};

}  // namespace shardlab::planner
