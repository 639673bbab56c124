// A min tournament tree whose nodes carry their keys. Private to the
// partitioners.
//
// The greedy partitioner asks "which device (host) has the smallest key"
// once per shard (option) while only a few keys change in between. A node
// holds a copy of its winner's key, so bringing a path up to date compares
// adjacent memory instead of chasing indices. Keys are (value, tie) with
// distinct ties, a strict total order, so the root is exactly what a scan
// for the smallest key would find.
//
// Leaves may change in bursts (a host placement touches a whole host), so
// set() only records the change; min() brings the tree up to date.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace shardlab::planner {

// (value, tie) as one 128-bit unsigned integer, compared in one step: the
// high half maps the double to an integer of the same order (negative
// values bit-flipped, the rest with the sign bit set), the low half is the
// tie. Along the placement loop's critical path this is a few cycles per
// tree level where two double comparisons were many more.
class TreeKey {
  __extension__ using uint128 = unsigned __int128;  // GCC/Clang builtin; -Wpedantic would flag it

 public:
  TreeKey(double value, uint64_t tie) {
    // +0.0: -0.0 equals 0.0 as a double and must map to the same integer.
    const uint64_t bits = std::bit_cast<uint64_t>(value + 0.0);
    const uint64_t order = (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
    key_ = (static_cast<uint128>(order) << 64) | tie;
  }
  static constexpr TreeKey max() { return TreeKey(~static_cast<uint128>(0)); }

  bool operator<(const TreeKey& o) const { return key_ < o.key_; }
  // The item: the tie's low 32 bits; -1 for max() (all ones).
  int item() const { return static_cast<int>(static_cast<uint32_t>(key_)); }

 private:
  constexpr explicit TreeKey(uint128 key) : key_(key) {}
  uint128 key_;
};

class MinKeyTree {
 public:
  // The sentinel of empty and excluded leaves: above every real key (a real
  // key's tie is below 2^64 - 1; NaN values are not supported).
  static constexpr TreeKey kEmpty = TreeKey::max();

  // n leaves, all kEmpty; fill them with set() before the first min().
  void reset(int n) {
    size_ = 1;
    depth_ = 0;
    while (size_ < n) {
      size_ *= 2;
      ++depth_;
    }
    node_.assign(2 * static_cast<size_t>(size_), kEmpty);
    dirty_flag_.assign(size_, 0);
    dirty_.clear();
    all_dirty_ = true;
  }

  void set(int leaf, const TreeKey& key) {
    node_[size_ + leaf] = key;
    if (!all_dirty_ && !dirty_flag_[leaf]) {
      dirty_flag_[leaf] = 1;
      dirty_.push_back(leaf);
    }
  }
  // set() and the leaf's path brought up to date now: cheaper than set()
  // for a single change (no bookkeeping). Paths of leaves set() earlier are
  // still redone by the next min().
  void update(int leaf, const TreeKey& key) {
    node_[size_ + leaf] = key;
    if (!all_dirty_) walk_up(size_ + leaf);
  }

  // The smallest key (kEmpty when every leaf is empty).
  const TreeKey& min() {
    if (all_dirty_ || !dirty_.empty()) sync();
    return node_[1];
  }

 private:
  // Branch-free: which child wins is data-dependent and mispredicts half
  // the time, so it selects by index arithmetic instead.
  void recompute(int i) {
    const TreeKey* child = &node_[2 * i];
    node_[i] = child[static_cast<int>(child[1] < child[0])];
  }

  // Recomputes the path above node i, carrying the winner in registers:
  // each level loads only the sibling, so the levels do not wait on each
  // other's stores. When several leaves changed, walking their paths one
  // after another still leaves every node right: the last walk through a
  // node finds both children final (a later change below the other child
  // would walk through the node again).
  void walk_up(int i) {
    TreeKey winner = node_[i];
    for (; i > 1; i /= 2) {
      const TreeKey& sibling = node_[i ^ 1];
      if (sibling < winner) winner = sibling;
      node_[i / 2] = winner;
    }
  }

  // Each changed leaf's path; with many changed leaves every node once
  // instead.
  void sync() {
    if (all_dirty_ || dirty_.size() * depth_ > static_cast<size_t>(size_)) {
      for (int i = size_ - 1; i >= 1; --i) recompute(i);
    } else {
      for (const int leaf : dirty_) walk_up(size_ + leaf);
    }
    for (const int leaf : dirty_) dirty_flag_[leaf] = 0;
    dirty_.clear();
    all_dirty_ = false;
  }

  int size_ = 1;      // leaves, a power of two
  size_t depth_ = 0;  // log2(size_): nodes on a leaf's path
  std::vector<TreeKey> node_;
  std::vector<char> dirty_flag_;
  std::vector<int> dirty_;
  bool all_dirty_ = true;
};

}  // namespace shardlab::planner
