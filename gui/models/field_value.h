// Turning what a user typed into a cell into the JSON value of a scenario
// field, without judging it: the loader judges (scenario_edit.h). Text that
// is not a number where a number is expected becomes a JSON string, so the
// loader's refusal shows exactly what was typed.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>

namespace shardlab::gui {

enum class FieldKind {
  kString,      // "user_id"
  kNumber,      // 64, 0.2, or a size / bandwidth with a unit ("32 GiB")
  kBool,        // true / false (also yes / no, 1 / 0 as typed in a cell)
  kNumberList,  // "1.0, 2.5"
  kStringList,  // "table_wise, row_wise"
  kName,        // "h100-sxm"; empty removes the field
  kJson,        // a JSON value as typed, e.g. an object; empty removes the field
};

// The JSON text for `text` typed into a field of `kind`. Empty text gives
// "null" (remove the field) for lists and numbers.
QString field_json(FieldKind kind, const QString& text);

// A JSON string literal of `text`.
QString json_quote(const QString& text);

// The allowed names of an enumerated field, for drop-downs: every sharding
// type, compute kernel, data type, compute device, optimizer, partitioner.
QStringList sharding_type_names();
QStringList compute_kernel_names();
QStringList data_type_names();

// A size as the shortest unit string the loader reads back to exactly
// `bytes` ("80 GiB", "1.5 GiB", "512 MiB"), else the plain number.
QString exact_size_text(int64_t bytes);
// A bandwidth in bytes/ms as the shortest "N GiB/s" / "N GB/s" string the
// loader reads back to exactly `bytes_per_ms`, else the plain number.
QString exact_bandwidth_text(double bytes_per_ms);

}  // namespace shardlab::gui
