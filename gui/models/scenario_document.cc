#include "models/scenario_document.h"

#include <QFileInfo>
#include <QUndoCommand>

#include "shardlab/data/file_io.h"
#include "shardlab/data/scenario_writer.h"

namespace shardlab::gui {

// One accepted edit: the scenario before and after.
class ScenarioEditCommand : public QUndoCommand {
 public:
  ScenarioEditCommand(ScenarioDocument* document, ScenarioPtr before, ScenarioPtr after,
                      const QString& text)
      : QUndoCommand(text),
        document_(document),
        before_(std::move(before)),
        after_(std::move(after)) {}

  void undo() override { document_->make_current(before_, QStringLiteral("Undo ") + text()); }
  void redo() override { document_->make_current(after_, text()); }

 private:
  ScenarioDocument* document_;
  ScenarioPtr before_;
  ScenarioPtr after_;
};

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent) {
  connect(&undo_, &QUndoStack::cleanChanged, this,
          [this](bool clean) { emit modifiedChanged(!clean); });
}

void ScenarioDocument::open(ScenarioPtr scenario, const QString& path, const QString& name) {
  const bool was_modified = modified();
  scenario_ = std::move(scenario);
  if (path_ != path) {
    path_ = path;
    emit pathChanged(path_);
  }
  name_ = name.isEmpty() ? QFileInfo(path).fileName() : name;
  last_change_.clear();
  {
    const QSignalBlocker quiet(&undo_);  // clear() announces cleanChanged; one signal below
    undo_.clear();
  }
  emit scenarioChanged(true);
  if (was_modified) emit modifiedChanged(false);
}

void ScenarioDocument::edit(ScenarioPtr edited, const QString& text) {
  undo_.push(new ScenarioEditCommand(this, scenario_, std::move(edited), text));
}

void ScenarioDocument::make_current(ScenarioPtr scenario, const QString& change) {
  if (scenario == scenario_) return;
  scenario_ = std::move(scenario);
  last_change_ = change;
  emit scenarioChanged(false);
}

Status ScenarioDocument::save(const QString& path) {
  if (!scenario_) return Status::not_found("no scenario is open");
  // As the command line writes its outputs (docs/outputs.md): atomically over a
  // regular file or a link's target, never over a device or FIFO.
  if (Status st =
          data::write_output_file(path.toStdString(), data::scenario_to_json(*scenario_) + "\n");
      !st.is_ok()) {
    return st;
  }
  if (path_ != path) {
    path_ = path;
    emit pathChanged(path_);
  }
  name_ = QFileInfo(path).fileName();
  undo_.setClean();
  return Status::ok();
}

}  // namespace shardlab::gui
