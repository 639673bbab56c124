// What the simulator knows about a GPU beyond TorchRec's topology constants:
// peak FLOP rates, the achievable fractions of the GEMM roofline, and the
// NCCL-like collective constants. Plain data, filled by the scenario loader
// from a GPU preset (`topology.gpu`, docs/presets.md); the planner never
// reads it.
//
// Units are the scenario format's: FLOP rates in FLOP per ms, times in ms,
// bandwidths in bytes per ms, fractions in [0, 1].
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace shardlab::planner {

// Arithmetic of the dense model's GEMMs (workload.dense.precision).
enum class Precision { kFp32, kTf32, kBf16, kFp16, kFp8 };
inline constexpr int kNumPrecisions = 5;
std::string_view to_string(Precision p);  // "fp32", "tf32", ...
std::optional<Precision> parse_precision(std::string_view s);
// Bytes per element of activations and weights in that precision (tf32
// computes on fp32 data).
int precision_bytes(Precision p);

// NCCL's algorithms and protocols (docs/simulation.md "Collectives"):
// kCollNet is NCCL's CollNet all-reduce (the network switches reduce:
// InfiniBand SHARP); kNvlsTree is NVLS inside each NVLink domain and a tree
// between domains. kNvls between domains reduces in the network too
// (NVLS+SHARP).
enum class CollAlgorithm { kRing, kTree, kNvls, kCollNet, kNvlsTree };
enum class CollProtocol { kLl, kLl128, kSimple };
inline constexpr int kNumCollAlgorithms = 5;
inline constexpr int kNumCollProtocols = 3;
// "ring", "tree", "nvls", "collnet", "nvls_tree"
std::string_view to_string(CollAlgorithm a);
std::string_view to_string(CollProtocol p);  // "LL", "LL128", "Simple"

// Latencies of one (algorithm, protocol), as NCCL's tuning model charges
// them: `base_ms` once per collective, then a step latency per step over
// NVLink (intra-host) or over the network (inter-host).
struct CollLatency {
  double base_ms = 0.0;
  double intra_step_ms = 0.0;
  double inter_step_ms = 0.0;
};

struct CollectiveTuning {
  // Bus bandwidth a large Simple-protocol collective reaches inside a host,
  // as a fraction of the GPU's link line rate (nccl-tests' asymptote).
  double all_reduce_fraction = 1.0;  // ring all-reduce
  double ring_fraction = 1.0;        // ring reduce-scatter and all-gather
  double p2p_fraction = 1.0;         // pairwise all-to-all
  // Fraction of a NIC's line rate any collective reaches between hosts.
  double network_fraction = 1.0;
  // NVLS all-reduce (NVLink SHARP): fraction of the GPU's link line rate
  // each direction carries at large sizes; 0 without NVLS.
  double nvls_fraction = 0.0;
  // Cap on the bus bandwidth of the LL protocol, bytes/ms (NCCL's llMaxBw).
  double ll_max_bw = 0.0;
  // Protocol efficiency relative to Simple, per algorithm; 0: the protocol
  // is not used with that algorithm (LL128 off the NVLink paths, NVLS only
  // Simple).
  std::array<std::array<double, kNumCollProtocols>, kNumCollAlgorithms> protocol_factor{};
  std::array<std::array<CollLatency, kNumCollProtocols>, kNumCollAlgorithms> latency{};
  // Point-to-point (all-to-all) messages up to this size use LL, larger
  // ones Simple (NCCL_P2P_LL_THRESHOLD).
  double p2p_ll_threshold_bytes = 0.0;
};

// Shape-dependent efficiency of a GEMM against the peak (docs/presets.md
// "The GEMM roofline"): output tiles of tile_m x tile_n spread over the SMs
// in waves (wave quantization), split over K when there are too few tiles,
// and a main loop that reaches its full rate after k_half of K.
struct GemmModel {
  std::array<double, kNumPrecisions> max_efficiency{};  // large, square GEMMs
  int sm_count = 1;
  int tile_m = 128;
  int tile_n = 128;
  double k_half = 0.0;       // K at which the main loop runs at half its rate
  double min_split_k = 256;  // smallest K slice of a split-K GEMM
  // Fixed time of every GEMM kernel besides its roofline (ramp-up, tail, a
  // split-K reduction), ms: 0 in the presets, fitted from measured products
  // by a calibration (kernels::fit_gemm_efficiency).
  double kernel_ms = 0.0;
};

struct GpuSpec {
  std::string name;         // the preset's name, e.g. "h100-sxm"
  std::string description;  // e.g. "NVIDIA H100 SXM5 80GB (DGX H100)"
  // Dense peak (no structured sparsity), FLOP per ms; 0: not supported.
  std::array<double, kNumPrecisions> peak_flops{};
  // Fraction of topology.hbm_mem_bw a streaming (elementwise) kernel reaches.
  double hbm_efficiency = 1.0;
  GemmModel gemm;
  // The host's NVSwitches reduce in the switch (NVLS all-reduce).
  bool nvls = false;
  CollectiveTuning collectives;
};

// What one CPU thread pays to issue a training step's work in an eager
// framework (docs/host-model.md), in ms, as Lin et al. (HiPC 2022) split an
// op's host time: a gap before it (between_ops), the time from its start to
// its first launch (before), each launch call (launch), the gaps between its
// launches (between_launches) and the time after its last launch (after). A
// host profile (`workload.host_profile`, data/presets/hosts.json) gives each
// number with its public source; the simulator's op inventory
// (sim/host_model.h) says which ops a step runs. Plain data; the planner
// never reads it.
struct HostOpCost {
  double before_ms = 0.0;
  double after_ms = 0.0;
  double between_launches_ms = 0.0;
};

struct HostProfile {
  std::string name;  // e.g. "pytorch-eager-2022"
  std::string description;
  double between_ops_ms = 0.0;     // T1: host gap between two ops
  double launch_ms = 0.0;          // T4: one kernel launch call
  double launch_latency_ms = 0.0;  // a launch call's return to its kernel's start (idle stream)
  double graph_launch_ms = 0.0;    // host time of launching one captured CUDA graph
  // Per op, by PyTorch's name for it ("aten::linear", "AddmmBackward0",
  // "LookupFunction", ...): what the op costs besides its launches.
  std::map<std::string, HostOpCost, std::less<>> ops;

  // Host time of `count` ops named `op` with `launches` launches each, ms;
  // nullopt when the profile has no such op.
  std::optional<double> op_ms(std::string_view op, int launches, int count = 1) const;
};

}  // namespace shardlab::planner
