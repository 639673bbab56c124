// Owning handles for device memory, pinned host memory, streams and events.
// Each frees its resource on the device it was made on; moving transfers
// ownership. A failed allocation is a Status naming the size, never an abort.
//
// Thread safety: none; a handle belongs to the thread driving its device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "cuda_check.h"

namespace shardlab::kernels::cuda {

// Device memory for `capacity()` elements of T. reserve() grows it (contents
// are not kept); the pointer is only valid on device_.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      capacity_ = std::exchange(other.capacity_, 0);
      device_ = other.device_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // REQUIRES: the current device is the one the buffer lives on (or it is empty).
  Status reserve(int64_t count) {
    if (count <= capacity_) return Status::ok();
    release();
    const size_t bytes = static_cast<size_t>(count) * sizeof(T);
    void* p = nullptr;
    const cudaError_t error = cudaMalloc(&p, bytes);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky allocation error
      return Status::internal("cannot allocate " + std::to_string(bytes) +
                              " bytes of device memory (" + cudaGetErrorString(error) + ")");
    }
    CUDA_CHECK(cudaGetDevice(&device_));
    data_ = static_cast<T*>(p);
    capacity_ = count;
    return Status::ok();
  }

  T* data() const { return data_; }
  int64_t capacity() const { return capacity_; }

 private:
  void release() {
    if (data_ == nullptr) return;
    int current = 0;
    (void)cudaGetDevice(&current);
    (void)cudaSetDevice(device_);
    (void)cudaFree(data_);
    (void)cudaSetDevice(current);
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  int64_t capacity_ = 0;
  int device_ = 0;
};

// Page-locked host memory, so device-to-host copies of small results run
// asynchronously on a stream.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
  }
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&&) = delete;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  Status reserve(int64_t count) {
    if (count <= capacity_) return Status::ok();
    if (data_ != nullptr) (void)cudaFreeHost(data_);
    data_ = nullptr;
    capacity_ = 0;
    void* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, static_cast<size_t>(count) * sizeof(T)));
    data_ = static_cast<T*>(p);
    capacity_ = count;
    return Status::ok();
  }
  T* data() const { return data_; }
  T& operator[](int64_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  int64_t capacity_ = 0;
};

class Stream {
 public:
  Stream() = default;
  ~Stream() {
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
  }
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // REQUIRES: the current device is the stream's.
  Status create() {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    return Status::ok();
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// A start/stop pair of timing events.
class EventPair {
 public:
  EventPair() = default;
  ~EventPair() {
    if (start_ != nullptr) (void)cudaEventDestroy(start_);
    if (stop_ != nullptr) (void)cudaEventDestroy(stop_);
  }
  EventPair(EventPair&& other) noexcept
      : start_(std::exchange(other.start_, nullptr)), stop_(std::exchange(other.stop_, nullptr)) {}
  EventPair& operator=(EventPair&&) = delete;
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  // REQUIRES: the current device is the one the events will be recorded on.
  Status create() {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
    return Status::ok();
  }
  Status record_start(cudaStream_t stream) {
    CUDA_CHECK(cudaEventRecord(start_, stream));
    return Status::ok();
  }
  Status record_stop(cudaStream_t stream) {
    CUDA_CHECK(cudaEventRecord(stop_, stream));
    return Status::ok();
  }
  // REQUIRES: both recorded and the stop event complete (stream synchronised).
  Result<double> elapsed_ms() const {
    float ms = 0.0f;
    const cudaError_t error = cudaEventElapsedTime(&ms, start_, stop_);
    if (error != cudaSuccess)
      return cuda_status(error, "cudaEventElapsedTime", "device_buffer.h", __LINE__);
    return static_cast<double>(ms);
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// Sets the current device for a scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    (void)cudaGetDevice(&previous_);
    ok_ = cudaSetDevice(device) == cudaSuccess;
  }
  ~DeviceGuard() { (void)cudaSetDevice(previous_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  bool ok() const { return ok_; }

 private:
  int previous_ = 0;
  bool ok_ = false;
};

}  // namespace shardlab::kernels::cuda
