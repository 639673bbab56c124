// A strip above a view's results saying whether they belong to the scenario
// and settings on screen (Workbench::plan_state / compare_state): hidden when
// they do; otherwise why not, with the action that refreshes them ("Re-plan",
// "Run again") or the note that it is under way.
#pragma once

#include <QFrame>
#include <QString>

#include "models/workbench.h"

class QLabel;
class QPushButton;

namespace shardlab::gui {

class StaleBanner : public QFrame {
  Q_OBJECT

 public:
  // `what`: the results it speaks for ("plan", "comparison"); `action`: the
  // refreshing action's label ("Re-plan (F5)").
  StaleBanner(const QString& what, const QString& action, QWidget* parent = nullptr);

  void set_state(const ResultState& state);
  QString text() const;
  bool action_visible() const;

 signals:
  void refreshRequested();

 private:
  QString what_;
  QLabel* label_ = nullptr;
  QPushButton* button_ = nullptr;
};

}  // namespace shardlab::gui
