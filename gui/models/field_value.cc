#include "models/field_value.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStringList>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/types.h"

namespace shardlab::gui {
namespace {

// JSON's number grammar.
bool is_json_number(const QString& text) {
  static const QRegularExpression kNumber(
      QStringLiteral("^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$"));
  return kNumber.match(text).hasMatch();
}

QString number_or_string(const QString& text) {
  return is_json_number(text) ? text : json_quote(text);
}

QString list_json(const QString& text, bool numbers) {
  const QStringList items = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
  QStringList out;
  for (const QString& raw : items) {
    const QString item = raw.trimmed();
    out << (numbers ? number_or_string(item) : json_quote(item));
  }
  return QLatin1Char('[') + out.join(QLatin1Char(',')) + QLatin1Char(']');
}

}  // namespace

QString json_quote(const QString& text) {
  // A one-element array serialises the string with JSON's escaping.
  const QByteArray doc = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
  return QString::fromUtf8(doc.mid(1, doc.size() - 2));
}

QString field_json(FieldKind kind, const QString& typed) {
  const QString text = typed.trimmed();
  switch (kind) {
    case FieldKind::kString:
      return json_quote(typed);
    case FieldKind::kNumber:
      return text.isEmpty() ? QStringLiteral("null") : number_or_string(text);
    case FieldKind::kBool: {
      const QString t = text.toLower();
      if (t == QLatin1String("true") || t == QLatin1String("yes") || t == QLatin1String("1")) {
        return QStringLiteral("true");
      }
      if (t == QLatin1String("false") || t == QLatin1String("no") || t == QLatin1String("0")) {
        return QStringLiteral("false");
      }
      return text.isEmpty() ? QStringLiteral("null") : json_quote(text);
    }
    case FieldKind::kNumberList:
      if (text == QLatin1String("[]")) return text;  // an explicit empty list (no inputs)
      return text.isEmpty() ? QStringLiteral("null") : list_json(text, true);
    case FieldKind::kStringList:
      return text.isEmpty() ? QStringLiteral("null") : list_json(text, false);
    case FieldKind::kName:
      return text.isEmpty() ? QStringLiteral("null") : json_quote(text);
    case FieldKind::kJson:
      return text.isEmpty() ? QStringLiteral("null") : text;
  }
  return QStringLiteral("null");
}

namespace {

template <typename E, typename F>
QStringList enum_names(std::initializer_list<E> values, F&& name) {
  QStringList out;
  for (E v : values) out << QString::fromUtf8(std::string(name(v)).c_str());
  return out;
}

}  // namespace

// The core's lists (planner/types.h), in declaration order.
QStringList sharding_type_names() {
  return QString::fromUtf8(std::string(planner::sharding_type_names()).c_str())
      .split(QStringLiteral(", "));
}

QStringList compute_kernel_names() {
  return QString::fromUtf8(std::string(planner::compute_kernel_names()).c_str())
      .split(QStringLiteral(", "));
}

QStringList data_type_names() {
  using D = planner::DataType;
  return enum_names({D::kFp32, D::kFp16, D::kBf16, D::kInt8, D::kInt4, D::kInt2},
                    [](D d) { return planner::to_string(d); });
}

QString exact_size_text(int64_t bytes) {
  if (bytes <= 0) return QString::number(bytes);
  for (const char* unit : {"TiB", "GiB", "MiB", "KiB"}) {
    for (int decimals = 0; decimals <= 3; ++decimals) {
      const int shift = unit[0] == 'T' ? 40 : unit[0] == 'G' ? 30 : unit[0] == 'M' ? 20 : 10;
      const QString text =
          QString::number(static_cast<double>(bytes) / static_cast<double>(int64_t{1} << shift),
                          'f', decimals) +
          QLatin1Char(' ') + QLatin1String(unit);
      Result<int64_t> back = data::parse_size_string(text.toStdString());
      if (back.is_ok() && *back == bytes) return text;
    }
  }
  return QString::number(bytes);
}

QString exact_bandwidth_text(double bytes_per_ms) {
  if (!(bytes_per_ms > 0)) return QString::number(bytes_per_ms, 'g', 17);
  for (const char* unit : {"GiB/s", "GB/s", "MiB/s", "MB/s"}) {
    const double scale =
        unit[0] == 'G' ? (unit[1] == 'i' ? 1073741824.0 : 1e9) : (unit[1] == 'i' ? 1048576.0 : 1e6);
    for (int decimals = 0; decimals <= 3; ++decimals) {
      const QString text = QString::number(bytes_per_ms * 1000.0 / scale, 'f', decimals) +
                           QLatin1Char(' ') + QLatin1String(unit);
      Result<double> back = data::parse_bandwidth_string(text.toStdString());
      if (back.is_ok() && *back == bytes_per_ms) return text;
    }
  }
  return QString::number(bytes_per_ms, 'g', 17);
}

}  // namespace shardlab::gui
