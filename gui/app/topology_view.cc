#include "app/topology_view.h"

#include <QComboBox>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainterPath>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <map>

#include "app/stale_banner.h"
#include "models/units.h"
#include "models/workbench_models.h"

namespace shardlab::gui {
namespace {

constexpr double kGpuW = 64;
constexpr double kGpuH = 40;
constexpr double kGap = 30;
constexpr int kGpusPerRow = 8;

// Green (idle / empty) through yellow to red (full / busy).
QColor heat(double f) {
  f = std::clamp(f, 0.0, 1.0);
  const QColor lo(0x59, 0xa1, 0x4f);
  const QColor mid(0xed, 0xc9, 0x48);
  const QColor hi(0xe1, 0x57, 0x59);
  const auto mix = [](const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
  };
  return f < 0.5 ? mix(lo, mid, f * 2) : mix(mid, hi, (f - 0.5) * 2);
}

QString bandwidth(double bytes_per_ms) { return format_bandwidth(bytes_per_ms); }

}  // namespace

TopologyView::TopologyView(WorkbenchModels* models, QWidget* parent) : WorkbenchView(parent) {
  banner_ = new StaleBanner(QStringLiteral("colouring (the shown plan's)"),
                            QStringLiteral("Re-plan (F5)"), this);
  colour_ = new QComboBox(this);
  colour_->addItem(QStringLiteral("HBM use of the plan"));
  colour_->addItem(QStringLiteral("Simulated busy time"));
  legend_ = new QLabel(this);
  legend_->setWordWrap(true);
  scene_ = new QGraphicsScene(this);
  view_ = new QGraphicsView(scene_, this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setDragMode(QGraphicsView::ScrollHandDrag);
  view_->setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  view_->viewport()->installEventFilter(this);
  view_->installEventFilter(this);
  auto* fit_button = new QToolButton(this);
  fit_button->setText(QStringLiteral("Fit"));
  fit_button->setToolTip(QStringLiteral("Show the whole cluster (0)"));
  auto* zoom_out = new QToolButton(this);
  zoom_out->setText(QStringLiteral("\u2212"));
  zoom_out->setToolTip(QStringLiteral("Zoom out (-, wheel)"));
  auto* zoom_in = new QToolButton(this);
  zoom_in->setText(QStringLiteral("+"));
  zoom_in->setToolTip(QStringLiteral("Zoom in (+, wheel)"));
  auto* bar = new QHBoxLayout();
  bar->addWidget(new QLabel(QStringLiteral("Colour GPUs by:"), this));
  bar->addWidget(colour_);
  bar->addWidget(legend_, 1);
  bar->addWidget(fit_button);
  bar->addWidget(zoom_out);
  bar->addWidget(zoom_in);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(banner_);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);
  layout->addWidget(new QLabel(
      QStringLiteral("Wheel: zoom, drag: pan, double-click a GPU: select its rank"), this));
  connect(colour_, &QComboBox::currentIndexChanged, this,
          [this](int i) { set_colour_by(i == 0 ? ColourBy::kHbmUse : ColourBy::kBusyTime); });
  connect(fit_button, &QToolButton::clicked, this, &TopologyView::fit);
  connect(zoom_out, &QToolButton::clicked, this, [this]() { zoom_by(0.8); });
  connect(zoom_in, &QToolButton::clicked, this, [this]() { zoom_by(1.25); });
  if (models == nullptr) return;
  Workbench* wb = models->workbench();
  const auto on_scenario = [this, wb]() {
    if (wb->scenario()) set_topology(topology_snapshot(*wb->scenario()));
  };
  connect(wb, &Workbench::scenarioChanged, this, on_scenario);
  connect(wb, &Workbench::displayedChanged, this, [this, wb]() {
    set_usage(wb->displayed() ? wb->displayed()->summary.ranks
                              : std::vector<planner::RankSummary>{});
  });
  connect(wb, &Workbench::simulationChanged, this,
          [this, wb]() { set_simulation(wb->simulation().get()); });
  connect(&wb->selection(), &Selection::changed, this,
          [this, wb]() { set_selected_rank(wb->selection().rank()); });
  connect(wb, &Workbench::freshnessChanged, this,
          [this, wb]() { banner_->set_state(wb->plan_state()); });
  connect(banner_, &StaleBanner::refreshRequested, wb, &Workbench::replan);
  connect(this, &TopologyView::rankClicked, &wb->selection(), &Selection::select_rank);
  on_scenario();
  banner_->set_state(wb->plan_state());
}

QWidget* TopologyView::export_target() {
  if (dirty_) rebuild();
  return view_;
}

QGraphicsScene* TopologyView::scene() {
  if (dirty_) rebuild();
  return scene_;
}

void TopologyView::invalidate() {
  dirty_ = true;
  if (isVisible()) rebuild();
}

void TopologyView::showEvent(QShowEvent* event) {
  WorkbenchView::showEvent(event);
  if (dirty_) rebuild();
}

void TopologyView::set_topology(const Result<TopologySnapshot>& topology) {
  if (topology.is_ok()) {
    topology_ = topology.value();
    topology_error_.clear();
  } else {
    topology_.reset();
    topology_error_ = QString::fromStdString(topology.status().message());
  }
  fitted_ = true;
  invalidate();
}

void TopologyView::set_usage(const std::vector<planner::RankSummary>& ranks) {
  ranks_ = ranks;
  invalidate();
}

void TopologyView::set_simulation(const sim::SimResult* simulation) {
  busy_.clear();
  link_use_.clear();
  iteration_ms_ = 0.0;
  if (simulation != nullptr) {
    iteration_ms_ = simulation->iteration_ms;
    for (const sim::RankResult& r : simulation->ranks)
      busy_.push_back(std::max(r.busy_compute_ms, r.busy_comm_ms));
    for (const sim::LinkResult& l : simulation->links) link_use_[l.name] = l;
  }
  invalidate();
}

void TopologyView::set_selected_rank(int rank) {
  if (rank == selected_rank_) return;
  selected_rank_ = rank;
  invalidate();
}

void TopologyView::set_colour_by(ColourBy mode) {
  mode_ = mode;
  const int index = mode == ColourBy::kHbmUse ? 0 : 1;
  if (colour_->currentIndex() != index) colour_->setCurrentIndex(index);
  invalidate();
}

double TopologyView::scale() const { return view_->transform().m11(); }

void TopologyView::fit() {
  fitted_ = true;
  // Shrink a large cluster to the view; never enlarge a small one.
  view_->resetTransform();
  const QRectF r = scene_->sceneRect();
  const QSize v = view_->viewport()->size();
  if (r.width() > v.width() || r.height() > v.height()) view_->fitInView(r, Qt::KeepAspectRatio);
  update_detail();
}

void TopologyView::zoom_by(double factor) {
  fitted_ = false;
  const double next = std::clamp(scale() * factor, 0.02, 8.0);
  const double f = next / scale();
  view_->scale(f, f);
  update_detail();
}

void TopologyView::update_detail() {
  // Text below about 6 px is noise: show it once the zoom makes it readable.
  const bool readable = scale() >= 0.6;
  for (QGraphicsItem* item : details_) item->setVisible(readable);
}

bool TopologyView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_->viewport() && event->type() == QEvent::MouseButtonDblClick) {
    const auto* me = static_cast<QMouseEvent*>(event);
    for (QGraphicsItem* item : view_->items(me->position().toPoint())) {
      const QVariant rank = item->data(0);
      if (rank.isValid()) {
        emit rankClicked(rank.toInt());
        return true;
      }
    }
  }
  if (watched == view_->viewport() && event->type() == QEvent::Wheel) {
    const auto* we = static_cast<QWheelEvent*>(event);
    zoom_by(std::pow(1.2, we->angleDelta().y() / 120.0));
    return true;
  }
  if (watched == view_ && event->type() == QEvent::KeyPress) {
    switch (static_cast<QKeyEvent*>(event)->key()) {
      case Qt::Key_Plus:
      case Qt::Key_Equal:
        zoom_by(1.25);
        return true;
      case Qt::Key_Minus:
        zoom_by(0.8);
        return true;
      case Qt::Key_0:
        fit();
        return true;
      default:
        break;
    }
  }
  return WorkbenchView::eventFilter(watched, event);
}

void TopologyView::rebuild() {
  dirty_ = false;
  details_.clear();
  scene_->clear();
  if (!topology_) {
    legend_->setText(topology_error_.isEmpty() ? QStringLiteral("No scenario") : topology_error_);
    return;
  }
  const TopologySnapshot& t = *topology_;
  legend_->setText(
      mode_ == ColourBy::kHbmUse
          ? QStringLiteral("HBM of shards, dense and KJT / HBM capacity: green 0% .. red 100%")
          : QStringLiteral("busiest stream per iteration / iteration time: green 0% .. red 100%"));
  if (!link_use_.empty()) {
    legend_->setText(legend_->text() +
                     QStringLiteral("; links: simulated load, green idle .. red always busy, "
                                    "thicker when busier"));
  }
  // Per host: its vertices by kind.
  struct HostItems {
    std::vector<int> gpus, nics;
    int fabric = -1, leaf = -1;
  };
  std::map<int, HostItems> hosts;
  std::vector<int> rail_leaves;
  int core = -1;
  for (size_t v = 0; v < t.vertices.size(); ++v) {
    const sim::Vertex& x = t.vertices[v];
    switch (x.kind) {
      case sim::VertexKind::kGpu:
        hosts[x.host].gpus.push_back(static_cast<int>(v));
        break;
      case sim::VertexKind::kNic:
        hosts[x.host].nics.push_back(static_cast<int>(v));
        break;
      case sim::VertexKind::kHostFabric:
        hosts[x.host].fabric = static_cast<int>(v);
        break;
      case sim::VertexKind::kLeaf:
        // A rail-optimized network's leaves serve many hosts: drawn apart.
        if (x.host < 0) {
          rail_leaves.push_back(static_cast<int>(v));
        } else {
          hosts[x.host].leaf = static_cast<int>(v);
        }
        break;
      case sim::VertexKind::kCore:
        core = static_cast<int>(v);
        break;
    }
  }
  std::vector<QPointF> at(t.vertices.size());
  const QFont small(font().family(), 7);
  size_t widest_host = 1;
  size_t tallest = 1;
  for (const auto& [host, items] : hosts) {
    widest_host = std::max(widest_host, std::min<size_t>(kGpusPerRow, items.gpus.size()));
    tallest = std::max(tallest, items.gpus.size());
  }
  const double host_w = static_cast<double>(widest_host) * (kGpuW + kGap) + kGap;
  const int gpu_rows = (static_cast<int>(tallest) + kGpusPerRow - 1) / kGpusPerRow;
  const double host_h = 160 + gpu_rows * (kGpuH + kGap);
  // Hosts in a near-square grid, with gaps that carry the network.
  const int num_hosts = static_cast<int>(hosts.size());
  const int per_row =
      std::max(1, std::min(num_hosts, static_cast<int>(std::ceil(std::sqrt(num_hosts * 1.0)))));
  constexpr double kRowGap = 60;
  constexpr double kColumnGap = 40;
  constexpr double kTop = 70;
  const double trunk_x = -50;
  const auto row_top = [&](int row) { return kTop + row * (host_h + kRowGap); };
  int h = 0;
  std::map<int, int> row_of_host;
  for (auto& [host, items] : hosts) {
    const int row = h / per_row;
    const double x0 = (h % per_row) * (host_w + kColumnGap);
    const double y0 = row_top(row);
    row_of_host[host] = row;
    ++h;
    auto* box = scene_->addRect(QRectF(x0, y0, host_w, host_h), QPen(QColor(0x88, 0x88, 0x88)),
                                QBrush(QColor(0xf5, 0xf5, 0xf5)));
    box->setZValue(-2);
    // A box is an NVLink domain: one host, or a pod of several (a GB200 rack).
    const int gpus = static_cast<int>(items.gpus.size());
    auto* title = scene_->addSimpleText(
        gpus > t.ranks_per_host ? QStringLiteral("NVLink domain %1: %2 hosts of %3 GPUs")
                                      .arg(host)
                                      .arg((gpus + t.ranks_per_host - 1) / t.ranks_per_host)
                                      .arg(t.ranks_per_host)
                                : QStringLiteral("host %1").arg(host));
    title->setPos(x0 + 6, y0 + 4);
    if (items.leaf >= 0) at[static_cast<size_t>(items.leaf)] = QPointF(x0 + host_w / 2, y0 + 16);
    for (size_t n = 0; n < items.nics.size(); ++n) {
      at[static_cast<size_t>(items.nics[n])] = QPointF(
          x0 + host_w * (static_cast<double>(n) + 1) / (static_cast<double>(items.nics.size()) + 1),
          y0 + 62);
    }
    if (items.fabric >= 0)
      at[static_cast<size_t>(items.fabric)] = QPointF(x0 + host_w / 2, y0 + 110);
    for (size_t g = 0; g < items.gpus.size(); ++g) {
      const int gr = static_cast<int>(g) / kGpusPerRow;
      const int gc = static_cast<int>(g) % kGpusPerRow;
      at[static_cast<size_t>(items.gpus[g])] = QPointF(x0 + kGap + gc * (kGpuW + kGap) + kGpuW / 2,
                                                       y0 + 160 + gr * (kGpuH + kGap) + kGpuH / 2);
    }
  }
  if (core >= 0) at[static_cast<size_t>(core)] = QPointF(trunk_x, 20);
  // Rail leaves in a row beside the core, above the hosts.
  for (size_t i = 0; i < rail_leaves.size(); ++i) {
    at[static_cast<size_t>(rail_leaves[i])] =
        QPointF(trunk_x + 100 + 90 * static_cast<double>(i), 20);
  }

  // Links: one label per kind and host when there are many, none where it
  // would cover one already placed (the link's tooltip still says it).
  const bool label_all = t.num_ranks <= 16;
  std::map<std::pair<int, int>, bool> labelled;  // (host, link kind)
  std::map<int, bool> routed;                    // hosts whose network path is drawn
  std::vector<QRectF> placed;
  const auto add_label = [&](const QString& text, QPointF pos) {
    auto* label = scene_->addSimpleText(text, small);
    label->setPos(pos);
    const QRectF box = label->sceneBoundingRect();
    if (std::any_of(placed.begin(), placed.end(),
                    [&](const QRectF& r) { return r.intersects(box); })) {
      scene_->removeItem(label);
      delete label;
      return;
    }
    placed.push_back(box);
    label->setBrush(QColor(0x40, 0x40, 0x40));
    details_.push_back(label);
  };
  for (size_t li = 0; li < t.links.size(); ++li) {
    const sim::Link& l = t.links[li];
    const QPointF a = at[static_cast<size_t>(l.from)];
    const QPointF b = at[static_cast<size_t>(l.to)];
    const bool network = l.kind == sim::LinkKind::kLeafCore || l.kind == sim::LinkKind::kCoreLeaf;
    QString tip = QString::fromStdString(l.name) + QStringLiteral(": ") + bandwidth(l.capacity) +
                  QStringLiteral(", latency %1 ms").arg(l.latency_ms);
    // Its load, once simulated: the busier direction's.
    std::optional<double> load;
    double bytes = 0.0;
    for (const std::string& name : {l.name, t.reverse[li]}) {
      const auto use = link_use_.find(name);
      if (use == link_use_.end()) continue;
      load = std::max(load.value_or(0.0), use->second.utilization);
      bytes += use->second.bytes;
    }
    if (load) {
      tip += QStringLiteral("; simulated: %1% busy over the run (the busier direction), %2 carried")
                 .arg(100.0 * *load, 0, 'f', 1)
                 .arg(format_bytes(bytes));
    }
    const auto pen = [&](QColor idle, double width) {
      return load ? QPen(heat(*load), width + 3.0 * std::clamp(*load, 0.0, 1.0))
                  : QPen(idle, width);
    };
    const int host = t.vertices[static_cast<size_t>(
                                    network && l.kind == sim::LinkKind::kCoreLeaf ? l.to : l.from)]
                         .host;
    if (network && host < 0) {  // a rail's leaf, beside the core
      auto* line = scene_->addLine(QLineF(a, b), pen(QColor(0x4e, 0x79, 0xa7), 2.0));
      line->setZValue(-1);
      line->setToolTip(tip);
      continue;
    }
    if (network) {
      // Leaf, up to the bus above its row of hosts, along it to the trunk on
      // the left, up to the core: never across another host.
      if (routed[host]) continue;
      routed[host] = true;
      const QPointF leaf = l.kind == sim::LinkKind::kLeafCore ? a : b;
      const QPointF hub = l.kind == sim::LinkKind::kLeafCore ? b : a;
      const double bus = row_top(row_of_host[host]) - kRowGap / 2;
      QPainterPath path(leaf);
      path.lineTo(leaf.x(), bus);
      path.lineTo(trunk_x, bus);
      path.lineTo(hub);
      auto* line = scene_->addPath(path, pen(QColor(0x4e, 0x79, 0xa7), 2.0));
      line->setZValue(-1);
      line->setToolTip(tip);
      add_label(bandwidth(l.capacity), QPointF(leaf.x() + 4, bus + 2));
      continue;
    }
    auto* line = scene_->addLine(QLineF(a, b), pen(QColor(0x99, 0x99, 0x99), 1.0));
    line->setZValue(-1);
    line->setToolTip(tip);
    const auto key = std::make_pair(host, static_cast<int>(l.kind));
    if (!label_all && labelled[key]) continue;
    labelled[key] = true;
    // A GPU's links fan out from it: label them near the GPU so labels of
    // neighbouring GPUs do not pile up at the shared switch.
    const bool from_gpu = t.vertices[static_cast<size_t>(l.from)].kind == sim::VertexKind::kGpu;
    const bool to_gpu = t.vertices[static_cast<size_t>(l.to)].kind == sim::VertexKind::kGpu;
    const QPointF at_label = from_gpu ? a + (b - a) * 0.45
                             : to_gpu ? b + (a - b) * 0.45
                                      : (a + b) / 2;
    add_label(bandwidth(l.capacity), QPointF(at_label.x() + 3, at_label.y() - 6));
  }
  // Switches and NICs.
  for (size_t v = 0; v < t.vertices.size(); ++v) {
    const sim::Vertex& x = t.vertices[v];
    if (x.kind == sim::VertexKind::kGpu) continue;
    const QPointF c = at[v];
    const QSizeF s = x.kind == sim::VertexKind::kNic ? QSizeF(34, 16) : QSizeF(70, 18);
    auto* node = scene_->addRect(QRectF(c - QPointF(s.width() / 2, s.height() / 2), s),
                                 QPen(Qt::darkGray), QBrush(QColor(0xdd, 0xe6, 0xf0)));
    node->setToolTip(QString::fromStdString(x.name));
    const char* label = x.kind == sim::VertexKind::kNic    ? "nic"
                        : x.kind == sim::VertexKind::kLeaf ? "leaf"
                        : x.kind == sim::VertexKind::kCore ? "core"
                                                           : "fabric";
    auto* text = scene_->addSimpleText(QString::fromLatin1(label), small);
    text->setPos(c.x() - text->boundingRect().width() / 2,
                 c.y() - text->boundingRect().height() / 2);
    if (x.kind != sim::VertexKind::kCore) details_.push_back(text);
  }
  // GPUs, coloured.
  for (size_t v = 0; v < t.vertices.size(); ++v) {
    const sim::Vertex& x = t.vertices[v];
    if (x.kind != sim::VertexKind::kGpu) continue;
    const size_t r = static_cast<size_t>(x.rank);
    QString value = QStringLiteral("-");
    QColor fill(0xe0, 0xe0, 0xe0);
    if (mode_ == ColourBy::kHbmUse && r < ranks_.size() && ranks_[r].capacity.hbm > 0) {
      const int64_t used = ranks_[r].used().hbm;
      fill = heat(static_cast<double>(used) / static_cast<double>(ranks_[r].capacity.hbm));
      value = format_bytes(static_cast<double>(used));
    } else if (mode_ == ColourBy::kBusyTime && r < busy_.size() && iteration_ms_ > 0) {
      fill = heat(busy_[r] / iteration_ms_);
      value = format_ms(busy_[r]);
    }
    const QRectF box(at[v] - QPointF(kGpuW / 2, kGpuH / 2), QSizeF(kGpuW, kGpuH));
    auto* gpu = scene_->addRect(
        box,
        QPen(x.rank == selected_rank_ ? Qt::black : Qt::darkGray, x.rank == selected_rank_ ? 3 : 1),
        QBrush(fill));
    gpu->setData(0, x.rank);
    gpu->setToolTip(QString::fromStdString(x.name) + QStringLiteral(" (rank %1): ").arg(x.rank) +
                    value);
    auto* text = scene_->addSimpleText(QStringLiteral("gpu%1\n%2").arg(x.rank).arg(value), small);
    text->setData(0, x.rank);
    text->setPos(box.left() + 4, box.top() + 4);
    details_.push_back(text);
  }
  scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-10, -10, 10, 10));
  if (fitted_) {
    fit();
  } else {
    update_detail();
  }
}

void TopologyView::resizeEvent(QResizeEvent* event) {
  WorkbenchView::resizeEvent(event);
  if (fitted_) fit();
}

}  // namespace shardlab::gui
