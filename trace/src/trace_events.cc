// Streaming read of a Kineto trace: zlib's gzread (which reads plain files as
// they are) under a std::streambuf, and nlohmann-json's SAX parser over it, so
// the file is never held whole.
#include "trace_events.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <istream>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <string_view>
#include <unordered_map>

namespace shardlab::trace::detail {
namespace {

// A read-only stream buffer over a gzip (or plain) file.
class GzBuffer : public std::streambuf {
 public:
  explicit GzBuffer(const std::string& path) : file_(gzopen(path.c_str(), "rb")) {}
  ~GzBuffer() override {
    if (file_ != nullptr) gzclose(file_);
  }
  GzBuffer(const GzBuffer&) = delete;
  GzBuffer& operator=(const GzBuffer&) = delete;

  bool is_open() const { return file_ != nullptr; }
  // zlib's or the system's error, when a read failed; empty otherwise.
  const std::string& error() const { return error_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const int n = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (n <= 0) {
      if (n < 0) {
        int code = Z_OK;
        const char* text = gzerror(file_, &code);
        error_ = code == Z_ERRNO ? std::strerror(errno) : text;
      }
      return traits_type::eof();
    }
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  gzFile file_;
  std::array<char, 1 << 16> buffer_{};
  std::string error_;
};

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The SAX reader. Depths: 1 inside the root object, 2 inside traceEvents (or
// distributedInfo), 3 inside one event, 4 inside its args.
class Reader : public nlohmann::json_sax<nlohmann::json> {
 public:
  Reader(RawTrace& out, const std::string& step_prefix) : out_(out), step_prefix_(step_prefix) {}

  std::string error;  // set by parse_error
  std::size_t error_offset = 0;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v), v); }
  bool number_unsigned(number_unsigned_t v) override {
    return number(static_cast<double>(v), static_cast<int64_t>(v));
  }
  bool number_float(number_float_t v, const string_t&) override {
    // Whole ids only; anything else (NaN, beyond int64_t) is no id.
    const bool whole =
        v >= -9.2e18 && v <= 9.2e18 && v == static_cast<double>(static_cast<int64_t>(v));
    return number(v, whole ? static_cast<int64_t>(v) : -1);
  }
  bool string(string_t& v) override {
    if (depth_ == 3 && in_event_) {
      if (key_ == "name") {
        name_.swap(v);
      } else if (key_ == "cat") {
        cat_.swap(v);
      }
    } else if (depth_ == 5 && in_args_ && list_key_ == "Input type") {
      if (input_types_ < kDimsKept) types_[input_types_] = v;
      if (first_list_ && input_type_.empty()) input_type_ = v;
      ++input_types_;
    } else if (depth_ == 3 && in_devices_ && key_ == "name" && out_.device.empty()) {
      out_.device = v;
    }
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 2 && key_ == "distributedInfo") in_dist_ = true;
    if (depth_ == 3 && in_events_) begin_event();
    if (depth_ == 4 && in_event_ && key_ == "args") in_args_ = true;
    key_.clear();
    return true;
  }
  bool key(string_t& k) override {
    key_.swap(k);
    return true;
  }
  bool end_object() override {
    if (depth_ == 4) in_args_ = false;
    if (depth_ == 3 && in_event_) end_event();
    if (depth_ == 2) in_dist_ = false;
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 2 && key_ == "traceEvents") {
      in_events_ = true;
      out_.has_events = true;
    }
    if (depth_ == 2 && key_ == "deviceProperties") in_devices_ = true;
    // "Input Dims": [[d0, d1, ...], ...] and "Input type": ["float", ...]:
    // the first input's.
    if (depth_ == 5 && in_args_) {
      list_key_ = key_;
      first_list_ = true;
    }
    if (depth_ == 6 && in_args_ && list_key_ == "Input Dims") {
      dims_index_ = inputs_seen_++;
      if (dims_index_ < kDimsKept) ndims_[dims_index_] = 0;
      if (first_list_) {
        dims_open_ = true;
        input_elements_ = 1;
      }
    }
    return true;
  }
  bool end_array() override {
    if (depth_ == 2) in_events_ = in_devices_ = false;
    if (depth_ == 6 && dims_open_) {
      dims_open_ = false;
      first_list_ = false;
      has_dims_ = true;
    }
    if (depth_ == 6) dims_index_ = -1;
    if (depth_ == 5) list_key_.clear();
    --depth_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    // nlohmann counts the characters read, the one it stopped at included.
    error = e.what();
    if (const std::size_t bracket = error.find("] ");
        error.front() == '[' && bracket != std::string::npos)
      error.erase(0, bracket + 2);
    error_offset = position > 0 ? position - 1 : 0;
    return false;
  }

 private:
  bool number(double v, int64_t i) {
    if (depth_ == 2 && in_dist_) {
      if (key_ == "rank") out_.rank = static_cast<int>(i);
      if (key_ == "world_size") out_.world_size = static_cast<int>(i);
    } else if (depth_ == 3 && in_event_) {
      if (key_ == "ts") {
        ts_ = v;
        has_ts_ = true;
      } else if (key_ == "dur") {
        dur_ = v;
      } else if (key_ == "tid") {
        tid_ = i;
      }
    } else if (depth_ == 4 && in_args_ && key_ == "correlation") {
      correlation_ = i;
      has_correlation_ = true;
    } else if (depth_ == 6 && dims_index_ >= 0 && dims_index_ < kDimsKept) {
      int& nd = ndims_[dims_index_];
      if (nd < kDimsKept) dims_[dims_index_][nd] = i;
      ++nd;
    }
    if (depth_ == 6 && dims_open_) {
      input_elements_ = i >= 0 && input_elements_ <= (int64_t{1} << 50) / std::max<int64_t>(i, 1)
                            ? input_elements_ * i
                            : -1;
    }
    return true;
  }

  // The index of name_ among the NCCL kernel names seen so far.
  int32_t nccl_name_id() {
    const auto [it, added] = nccl_ids_.emplace(name_, static_cast<int32_t>(out_.nccl_names.size()));
    if (added) out_.nccl_names.push_back(name_);
    return it->second;
  }

  void begin_event() {
    in_event_ = true;
    name_.clear();
    cat_.clear();
    input_type_.clear();
    ts_ = dur_ = 0.0;
    tid_ = -1;
    has_ts_ = has_correlation_ = has_dims_ = false;
    input_elements_ = 0;
    inputs_seen_ = input_types_ = 0;
    dims_index_ = -1;
    ndims_.fill(0);
  }

  // The matrix product an `aten::mm`/`addmm`/`bmm` op's inputs describe:
  // mm (A, B), addmm (bias, A, B), bmm (A, B) with a leading batch dim.
  void add_gemm() {
    const int a = name_ == "aten::addmm" ? 1 : 0;
    const int rank = name_ == "aten::bmm" ? 3 : 2;
    if (inputs_seen_ < a + 2 || ndims_[a] != rank || ndims_[a + 1] != rank) return;
    const auto& A = dims_[a];
    const auto& B = dims_[a + 1];
    GemmOp g{.name = name_, .ts_us = ts_, .end_us = ts_ + dur_, .tid = tid_};
    if (rank == 3) {
      if (A[0] != B[0]) return;
      g.batch = A[0];
    }
    g.m = A[rank - 2];
    g.k = A[rank - 1];
    g.n = B[rank - 1];
    if (B[rank - 2] != g.k || g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return;
    if (a < input_types_ && a < kDimsKept) g.type = types_[a];
    out_.gemm_ops.push_back(std::move(g));
  }

  // Bytes of one element of a profiler "Input type".
  static int element_bytes(const std::string& type) {
    if (type == "float" || type == "int") return 4;
    if (type == "double" || type == "long" || type == "long int") return 8;
    if (type == "c10::Half" || type == "c10::BFloat16" || type == "short") return 2;
    if (type == "signed char" || type == "unsigned char" || type == "bool") return 1;
    return 0;
  }

  void end_event() {
    in_event_ = false;
    if (!has_ts_) return;
    if (starts_with(name_, step_prefix_) && !starts_with(cat_, "gpu_")) {
      const std::size_t from = step_prefix_.size();
      int64_t n = 0;
      bool digits = name_.size() > from && name_.size() - from <= 18;
      for (std::size_t i = from; i < name_.size() && digits; ++i) {
        digits = name_[i] >= '0' && name_[i] <= '9';
        n = n * 10 + (name_[i] - '0');
      }
      out_.steps.push_back({.step = digits ? n : -1, .ts_us = ts_, .dur_us = dur_, .tid = tid_});
      return;
    }
    if ((cat_ == "cpu_op" || cat_ == "user_annotation") && starts_with(name_, "nccl:")) {
      out_.comm_ops.push_back({.name = name_,
                               .ts_us = ts_,
                               .end_us = ts_ + dur_,
                               .elements = has_dims_ && input_elements_ > 0 ? input_elements_ : 0,
                               .element_bytes = element_bytes(input_type_)});
    }
    if (cat_ == "cpu_op" && (name_ == "aten::mm" || name_ == "aten::addmm" || name_ == "aten::bmm"))
      add_gemm();
    if (cat_ == "user_annotation" || cat_ == "cpu_op") {
      if (const int stage = stage_of(name_); stage >= 0)
        out_.stages[stage].push_back({.ts_us = ts_, .end_us = ts_ + dur_});
      return;
    }
    // Kineto's categories, and the capitalised ones of its first releases.
    const bool runtime = cat_ == "cuda_runtime" || cat_ == "cuda_driver" || cat_ == "Runtime";
    if (runtime) {
      const bool sync =
          name_.size() > 11 && name_.compare(name_.size() - 11, 11, "Synchronize") == 0;
      const bool copy = starts_with(name_, "cudaMemcpy") || starts_with(name_, "cuMemcpy");
      if (sync || copy) {
        out_.blocking.push_back({.ts_us = ts_,
                                 .dur_us = dur_,
                                 .tid = tid_,
                                 .correlation = has_correlation_ ? correlation_ : -1,
                                 .copy = !sync});
      }
    }
    if (!has_correlation_) return;
    if (runtime) {
      out_.launches.push_back({.correlation = correlation_, .ts_us = ts_, .tid = tid_});
    } else if (cat_ == "kernel" || cat_ == "Kernel") {
      const uint8_t families = kernel_families(name_);
      out_.gpu.push_back({.correlation = correlation_,
                          .ts_us = ts_,
                          .dur_us = dur_,
                          .kind = GpuKind::kKernel,
                          .families = families,
                          .nccl_name = (families & kNccl) != 0 ? nccl_name_id() : -1});
    } else if (cat_ == "gpu_memcpy" || cat_ == "Memcpy") {
      out_.gpu.push_back(
          {correlation_, ts_, dur_, GpuKind::kMemcpy, 0, name_.find("DtoH") != std::string::npos});
    } else if (cat_ == "gpu_memset" || cat_ == "Memset") {
      out_.gpu.push_back({correlation_, ts_, dur_, GpuKind::kMemset, 0, false});
    }
  }

  RawTrace& out_;
  std::unordered_map<std::string, int32_t> nccl_ids_;
  const std::string& step_prefix_;
  int depth_ = 0;
  std::string key_;
  bool in_events_ = false, in_event_ = false, in_args_ = false, in_dist_ = false;
  bool in_devices_ = false;
  std::string name_, cat_;
  // An event's first input, from its args' "Input Dims" and "Input type".
  std::string list_key_;  // the args list being read
  bool first_list_ = false, dims_open_ = false, has_dims_ = false;
  int64_t input_elements_ = 0;  // -1: too many to count
  std::string input_type_;
  // The first kDimsKept inputs' dims (kDimsKept of each at most; ndims_
  // counts them all) and types, for matrix products.
  static constexpr int kDimsKept = 3;
  std::array<std::array<int64_t, kDimsKept>, kDimsKept> dims_{};
  std::array<int, kDimsKept> ndims_{};
  std::array<std::string, kDimsKept> types_;
  int inputs_seen_ = 0, input_types_ = 0;
  int dims_index_ = -1;  // the input whose dims are being read
  double ts_ = 0.0, dur_ = 0.0;
  int64_t tid_ = -1;  // -1: absent, or not a number
  int64_t correlation_ = 0;
  bool has_ts_ = false, has_correlation_ = false;
};

}  // namespace

uint8_t kernel_families(const std::string& name) {
  const auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  uint8_t f = 0;
  if (starts_with(name, "nccl")) f |= kNccl;
  if (has("split_embedding") || has("embedding_codegen") || has("batched_embedding")) f |= kTbe;
  if (has("gemm") || has("xmma") || has("cutlass")) f |= kGemm;
  if (has("tf32") || has("s1688")) f |= kTensorF32;
  return f;
}

int stage_of(const std::string& name) {
  const auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (name == "nccl:all_reduce") return static_cast<int>(Stage::kAllReduce);
  if (has("sparse_data_dist") || starts_with(name, "## all2all_data") || has("KJTAllToAll") ||
      has("input_dist"))
    return static_cast<int>(Stage::kInputDist);
  if (starts_with(name, "## optimizer") || starts_with(name, "Optimizer.step"))
    return static_cast<int>(Stage::kOptimizer);
  if (starts_with(name, "## backward")) return static_cast<int>(Stage::kBackward);
  if (starts_with(name, "## forward")) return static_cast<int>(Stage::kForward);
  return -1;
}

Result<RawTrace> read_trace_events(const std::string& path, const std::string& step_prefix) {
  GzBuffer buffer(path);
  if (!buffer.is_open()) {
    return Status::invalid_argument(path + ": cannot read: " + std::strerror(errno));
  }
  std::istream in(&buffer);
  RawTrace out;
  Reader reader(out, step_prefix);
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(in, &reader);
  } catch (const std::exception& e) {
    reader.error = e.what();
  }
  if (!parsed) {
    std::string what = reader.error.empty() ? "unreadable JSON" : reader.error;
    if (!buffer.error().empty()) what = buffer.error() + " (" + what + ")";
    return Status::invalid_argument(path + ": not a complete trace: " + what + " at byte " +
                                    std::to_string(reader.error_offset) +
                                    " of its (decompressed) text");
  }
  if (!out.has_events) {
    return Status::invalid_argument(
        path + ": no traceEvents array: not a PyTorch profiler (Kineto) trace");
  }
  return out;
}

}  // namespace shardlab::trace::detail
