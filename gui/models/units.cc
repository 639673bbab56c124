#include "models/units.h"

#include <cmath>

#include "shardlab/data/scenario_loader.h"

namespace shardlab::gui {

QString format_bytes(double bytes) { return QString::fromStdString(data::format_bytes(bytes)); }

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
