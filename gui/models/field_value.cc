#include "models/field_value.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStringList>

namespace shardlab::gui {
namespace {

// JSON's number grammar.
bool is_json_number(const QString& text) {
  static const QRegularExpression kNumber(QStringLiteral("^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$"));
  return kNumber.match(text).hasMatch();
}

QString number_or_string(const QString& text) { return is_json_number(text) ? text : json_quote(text); }

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

}  // namespace shardlab::gui
