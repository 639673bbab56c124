#include "json_document.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "json_path.h"
#include "json_reader.h"
#include "message_text.h"
#include "problem_collector.h"
#include "shardlab/planner/memory_budget.h"

namespace shardlab::data::internal {
namespace {

using json = Json;

// Objects up to this size are searched linearly for a duplicate key; larger
// ones (a constraints object with a key per table) get a hash set, so a
// 100k-key object costs O(n), not O(n^2).
constexpr std::size_t kLinearKeySearchMax = 16;

// What the tree costs, counted generously so that the count stays above the
// real use: a value in a list (16 bytes, and vectors grow by doubling, the old
// block alive while the new one fills), a member of an object (key and
// value), a container's own block, a string past the small-string buffer,
// an entry of a large object's key set.
constexpr int64_t kListValueBytes = 48;
constexpr int64_t kMemberBytes = 144;
constexpr int64_t kContainerBytes = 64;
constexpr int64_t kHeapStringBytes = 32;   // plus the characters
constexpr int64_t kKeySetEntryBytes = 64;  // plus the characters
constexpr std::size_t kSmallString = 15;

// Line and column (1-based) of the byte nlohmann last read. `position` is its
// 1-based byte count, n+1 meaning "after the last byte".
std::pair<std::size_t, std::size_t> line_and_column(const std::string& text, std::size_t position) {
  const std::size_t end = std::min(position == 0 ? 0 : position - 1, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, end - line_start + 1};
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 1,
// column 2: syntax error while ..."; our message gives the place itself, so keep
// only the reason.
std::string reason_of(const json::exception& e) {
  std::string_view what = e.what();
  if (what.starts_with("[json.exception.")) {
    const auto close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  if (what.starts_with("parse error")) {
    const auto colon = what.find(": ");
    if (colon != std::string_view::npos) what.remove_prefix(colon + 2);
  }
  return printable(truncate_utf8(what, 200));
}

// Builds the tree from SAX events (the interface nlohmann's sax_parse expects).
//
// Invariant: `stack_` holds the open containers, outermost first. Arrays and
// objects are vectors, so appending may move their elements; but values are
// only appended to the innermost open container, and an open container is the
// last element of its parent, which gets nothing new until it closes. So every
// pointer on the stack (and `member_slot_`, used before the next append) stays
// valid.
class BoundedTreeBuilder {
 public:
  BoundedTreeBuilder(const std::string& text, const KeySchema* schema, int64_t max_bytes)
      : text_(text), schema_(schema), max_bytes_(max_bytes) {}
  BoundedTreeBuilder(const BoundedTreeBuilder&) = delete;
  BoundedTreeBuilder& operator=(const BoundedTreeBuilder&) = delete;
  ~BoundedTreeBuilder() { release_tree(root_); }

  bool null() {
    return guarded([&] { return add(json(nullptr)) != nullptr; });
  }
  bool boolean(bool v) {
    return guarded([&] { return add(json(v)) != nullptr; });
  }
  bool number_integer(json::number_integer_t v) {
    return guarded([&] { return add(json(v)) != nullptr; });
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return guarded([&] { return add(json(v)) != nullptr; });
  }
  bool number_float(json::number_float_t v, const json::string_t& /*text*/) {
    return guarded([&] { return add(json(v)) != nullptr; });
  }
  bool string(json::string_t& v) {
    return guarded([&] {
      return charge(v.size() > kSmallString ? kHeapStringBytes + static_cast<int64_t>(v.size())
                                            : 0) &&
             add(json(std::move(v))) != nullptr;
    });
  }
  bool binary(json::binary_t& v) {
    return guarded([&] { return add(json::binary(std::move(v))) != nullptr; });
  }

  bool start_object(std::size_t /*elements*/) {
    return guarded([&] { return open(json::object()); });
  }
  bool start_array(std::size_t /*elements*/) {
    return guarded([&] { return open(json::array()); });
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& k) {
    return guarded([&] {
      Frame& frame = stack_.back();
      auto& members = frame.container->get_ref<json::object_t&>();
      if (is_unknown(frame, k)) return false;
      if (is_duplicate(frame, members, k)) {
        error_ = render_path(/*with_pending_value=*/false) + ": duplicate key: got " +
                 quote_truncated(k) + ", expected each key once per object";
        return false;
      }
      const auto key_bytes =
          static_cast<int64_t>(k.size() > kSmallString ? kHeapStringBytes + k.size() : 0);
      if (!charge(kMemberBytes + key_bytes + (frame.seen_keys ? kKeySetEntryBytes + key_bytes : 0)))
        return false;
      if (frame.seen_keys) frame.seen_keys->insert(k);
      // Append without ordered_map's own (linear) search for an existing key.
      members.json::object_t::Container::emplace_back(std::move(k), nullptr);
      frame.member_key = &members.back().first;
      member_slot_ = &members.back().second;
      return true;
    });
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const json::exception& e) {
    const auto [line, column] = line_and_column(text_, position);
    error_ = "malformed JSON at line " + std::to_string(line) + ", column " +
             std::to_string(column) + ": " + reason_of(e);
    return false;
  }

  const std::optional<std::string>& error() const { return error_; }
  bool out_of_memory() const { return out_of_memory_; }
  json take_root() { return std::move(root_); }

 private:
  struct Frame {
    json* container;
    const KeySchema* schema = nullptr;        // the keys this object may hold; null: unchecked
    const std::string* member_key = nullptr;  // objects: key of the member being read
    std::unique_ptr<std::unordered_set<std::string>> seen_keys;  // large objects only
  };

  // Runs a callback; running out of memory stops the parse with an error
  // instead of unwinding through nlohmann's parser.
  template <typename F>
  bool guarded(F&& f) {
    try {
      return f();
    } catch (const std::bad_alloc&) {
      out_of_memory_ = true;
      try {
        error_ = render_path(/*with_pending_value=*/true);
      } catch (const std::bad_alloc&) {
        error_ = "<root>";
      }
      return false;
    }
  }

  // Counts `bytes` more of tree; false (with the error set) past the limit.
  bool charge(int64_t bytes) {
    used_bytes_ += bytes;
    if (used_bytes_ <= max_bytes_) return true;
    out_of_memory_ = true;
    error_ = render_path(/*with_pending_value=*/true);
    return false;
  }

  bool is_unknown(const Frame& frame, const std::string& key) {
    if (frame.schema == nullptr || frame.schema->keys.empty()) return false;
    const auto& keys = frame.schema->keys;
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) return false;
    std::string choices;
    for (std::string_view a : keys) {
      if (!choices.empty()) choices += ", ";
      choices += a;
    }
    error_ = render_path(/*with_pending_value=*/false) + ": unknown key: got " +
             describe(json(key)) + ", expected one of " + choices;
    // Collecting (shardlab validate): say it and read on.
    if (ProblemCollector::note(Status::invalid_argument(*error_)).is_ok()) {
      error_.reset();
      return false;
    }
    return true;
  }

  static bool is_duplicate(Frame& frame, const json::object_t& members, const std::string& key) {
    if (!frame.seen_keys) {
      if (members.size() < kLinearKeySearchMax) {
        for (const auto& m : members) {
          if (m.first == key) return true;
        }
        return false;
      }
      frame.seen_keys = std::make_unique<std::unordered_set<std::string>>();
      for (const auto& m : members) frame.seen_keys->insert(m.first);
    }
    return frame.seen_keys->contains(key);
  }

  // Stores `value` where the grammar says the next value goes; returns its slot.
  json* add(json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& top = *stack_.back().container;
    if (top.is_array()) {
      if (!charge(kListValueBytes)) return nullptr;
      auto& elements = top.get_ref<json::array_t&>();
      elements.push_back(std::move(value));
      return &elements.back();
    }
    *member_slot_ = std::move(value);
    return member_slot_;
  }

  bool open(json empty_container) {
    if (stack_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) {
      error_ = render_path(/*with_pending_value=*/true) + ": JSON nested deeper than " +
               std::to_string(kMaxJsonDepth) + " levels; ShardLab's documents need a few";
      return false;
    }
    // The container's schema: the parent's for this member or element.
    const KeySchema* schema = schema_;
    if (!stack_.empty()) {
      const Frame& parent = stack_.back();
      schema = parent.schema == nullptr       ? nullptr
               : parent.container->is_array() ? parent.schema->elements
               : parent.member_key != nullptr ? parent.schema->member(*parent.member_key)
                                              : nullptr;
    }
    if (!charge(kContainerBytes)) return false;
    json* slot = add(std::move(empty_container));
    if (slot == nullptr) return false;
    stack_.push_back(Frame{.container = slot, .schema = schema});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  // Path of the innermost open container, or with `with_pending_value` of the
  // value about to be stored in it; cut to stay on one line. Outer frames
  // always point at their last element or member: that is the open child.
  std::string render_path(bool with_pending_value) const {
    std::string out;
    for (std::size_t i = 0; i < stack_.size(); ++i) {
      if (out.size() > 2 * kMaxValueChars) {
        out += "...";
        break;
      }
      const bool innermost = i + 1 == stack_.size();
      if (innermost && !with_pending_value) break;
      const Frame& frame = stack_[i];
      if (frame.container->is_array()) {
        const std::size_t n = frame.container->size();
        append_path_index(out, innermost ? n : n - 1);
      } else if (frame.member_key != nullptr) {
        append_path_key(out, *frame.member_key);
      }
    }
    return out.empty() ? std::string("<root>") : out;
  }

  const std::string& text_;
  const KeySchema* schema_;
  const int64_t max_bytes_;
  int64_t used_bytes_ = 0;
  bool out_of_memory_ = false;
  json root_;
  std::vector<Frame> stack_;
  json* member_slot_ = nullptr;
  std::optional<std::string> error_;
};

}  // namespace

const KeySchema* KeySchema::member(std::string_view key) const {
  for (const auto& [name, schema] : members) {
    if (name == key) return schema;
  }
  return any_member;
}

void release_tree(Json& tree) noexcept {
  if (tree.is_array()) {
    auto& elements = tree.get_ref<json::array_t&>();
    for (json& e : elements) release_tree(e);
    elements.clear();
  } else if (tree.is_object()) {
    auto& members = tree.get_ref<json::object_t&>();
    for (auto& m : members) release_tree(m.second);
    members.clear();
  }
}

Result<Json> parse_json_document(const std::string& text, const KeySchema* schema,
                                 int64_t max_tree_bytes) {
  BoundedTreeBuilder builder(text, schema, max_tree_bytes);
  bool ok = false;
  bool lexer_out_of_memory = false;
  try {
    ok = json::sax_parse(text, &builder, json::input_format_t::json, /*strict=*/true,
                         /*ignore_comments=*/false);
  } catch (const json::exception& e) {
    // sax_parse reports through parse_error(); this is only a safety net.
    return Status::invalid_argument("malformed JSON: " + reason_of(e));
  } catch (const std::bad_alloc&) {
    lexer_out_of_memory =
        true;  // a token (a huge string) did not fit; the builder frees what it built
  }
  if (lexer_out_of_memory || builder.out_of_memory()) {
    const std::string where = builder.out_of_memory() ? *builder.error() : std::string("<root>");
    return Status::invalid_argument(where + ": reading this document needs more than " +
                                    planner::memory_text(max_tree_bytes) + " of memory");
  }
  if (!ok || builder.error()) {
    return Status::invalid_argument(builder.error().value_or("malformed JSON"));
  }
  return builder.take_root();
}

Result<Json> parse_json_document(const std::string& text, const KeySchema* schema) {
  Result<planner::MemoryBudget> budget = planner::memory_budget();
  if (!budget) return budget.status();
  Result<Json> doc = parse_json_document(text, schema, budget->left);
  if (doc || doc.status().message().find(": reading this document needs more than ") ==
                 std::string::npos) {
    return doc;
  }
  return Status::invalid_argument(doc.status().message() +
                                  ", more than is left of the memory budget (" +
                                  planner::memory_text(budget->bytes) + ", " + budget->source +
                                  "); " + planner::kMemoryBudgetVariable + " sets the budget");
}

}  // namespace shardlab::data::internal
