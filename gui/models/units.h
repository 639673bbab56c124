// Display units of the workbench: bytes shown in GiB (2^30), times in ms.
// Models hand charts numbers in these units and keep the core's exact value
// under RawValueRole (model_roles.h).
#pragma once

#include <QString>
#include <cstdint>

namespace shardlab::gui {

inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

inline double to_gib(int64_t bytes) { return static_cast<double>(bytes) / kBytesPerGiB; }

// "512 B", "1.50 KiB", "3.20 GiB": data::format_bytes, as the CLI prints them.
QString format_bytes(double bytes);

// A bandwidth given in bytes/ms, per second with 3 significant digits:
// "600 GiB/s", "12.5 GiB/s".
QString format_bandwidth(double bytes_per_ms);

// "0.3148 ms" with four decimals, "-" for NaN.
QString format_ms(double ms);

// A relative change (0.179 = +17.9%) as "+17.9%", "-3.2%", "0.0%".
QString format_percent(double fraction);

}  // namespace shardlab::gui
