#include "app/stale_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace shardlab::gui {

StaleBanner::StaleBanner(const QString& what, const QString& action, QWidget* parent)
    : QFrame(parent), what_(what) {
  setFrameShape(QFrame::StyledPanel);
  setAutoFillBackground(true);
  QPalette p = palette();
  p.setColor(QPalette::Window, QColor(0xff, 0xf3, 0xcd));
  p.setColor(QPalette::WindowText, QColor(0x66, 0x4d, 0x03));
  setPalette(p);
  label_ = new QLabel(this);
  label_->setWordWrap(true);
  button_ = new QPushButton(action, this);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 2, 6, 2);
  layout->addWidget(label_, 1);
  layout->addWidget(button_);
  connect(button_, &QPushButton::clicked, this, &StaleBanner::refreshRequested);
  hide();
}

void StaleBanner::set_state(const ResultState& state) {
  if (state.current() && !state.refreshing) {
    hide();
    return;
  }
  QString text;
  if (state.stale()) {
    text = QStringLiteral("<b>Out of date:</b> %1; this %2 belongs to what was on screen before.")
               .arg(state.reason.toHtmlEscaped(), what_);
    text += state.refreshing ? QStringLiteral(" Updating...") : QString();
  } else if (state.current()) {
    text = QStringLiteral("Updating the %1...").arg(what_);
  } else {
    text = state.refreshing ? QStringLiteral("Working on the %1...").arg(what_)
                            : QStringLiteral("No %1: %2.").arg(what_, state.reason.toHtmlEscaped());
  }
  label_->setText(text);
  button_->setVisible(!state.refreshing);
  show();
}

QString StaleBanner::text() const { return isHidden() ? QString() : label_->text(); }

bool StaleBanner::action_visible() const { return !isHidden() && !button_->isHidden(); }

}  // namespace shardlab::gui
