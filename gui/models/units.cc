#include "models/units.h"

#include <cmath>

namespace shardlab::gui {

QString format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (!std::isfinite(bytes)) return QStringLiteral("-");
  double v = std::fabs(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 5) {
    v /= 1024.0;
    ++unit;
  }
  const QString sign = bytes < 0 ? QStringLiteral("-") : QString();
  if (unit == 0) return sign + QString::number(v, 'f', 0) + QStringLiteral(" B");
  return sign + QString::number(v, 'f', 2) + QLatin1Char(' ') + QLatin1String(kUnits[unit]);
}

QString format_bandwidth(double bytes_per_ms) {
  static const char* const kUnits[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"};
  double v = bytes_per_ms * 1000.0;
  if (!std::isfinite(v)) return QStringLiteral("-");
  int unit = 0;
  while (v >= 1024.0 && unit < 4) {
    v /= 1024.0;
    ++unit;
  }
  return QString::number(v, 'g', 3) + QLatin1Char(' ') + QLatin1String(kUnits[unit]);
}

QString format_ms(double ms) {
  if (std::isnan(ms)) return QStringLiteral("-");
  return QString::number(ms, 'f', 4) + QStringLiteral(" ms");
}

QString format_percent(double fraction) {
  if (!std::isfinite(fraction)) return QStringLiteral("-");
  const double pct = 100.0 * fraction;
  if (std::abs(pct) < 0.05) return QStringLiteral("0.0%");
  return (pct > 0 ? QStringLiteral("+") : QString()) + QString::number(pct, 'f', 1) +
         QLatin1Char('%');
}

}  // namespace shardlab::gui
