#include "models/scenario_document.h"

#include <QFileInfo>
#include <QUndoCommand>

#include "shardlab/data/file_io.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/scenario_writer.h"

namespace shardlab::gui {

// One accepted edit: the scenario before and after.
class ScenarioEditCommand : public QUndoCommand {
 public:
  ScenarioEditCommand(ScenarioDocument* document, ScenarioPtr before, ScenarioPtr after,
                      const QString& text, std::optional<data::FieldEdit> field)
      : QUndoCommand(text),
        document_(document),
        before_(std::move(before)),
        after_(std::move(after)),
        field_(std::move(field)) {}

  const std::optional<data::FieldEdit>& field() const { return field_; }

  void undo() override { document_->make_current(before_, QStringLiteral("Undo ") + text()); }
  void redo() override { document_->make_current(after_, text()); }

 private:
  ScenarioDocument* document_;
  ScenarioPtr before_;
  ScenarioPtr after_;
  std::optional<data::FieldEdit> field_;
};

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent) {
  connect(&undo_, &QUndoStack::cleanChanged, this,
          [this](bool clean) { emit modifiedChanged(!clean); });
}

void ScenarioDocument::open(ScenarioPtr scenario, const QString& path, const QString& name,
                            std::string file_text) {
  const bool was_modified = modified();
  scenario_ = std::move(scenario);
  if (path_ != path) {
    path_ = path;
    emit pathChanged(path_);
  }
  name_ = name.isEmpty() ? QFileInfo(path).fileName() : name;
  last_change_.clear();
  base_text_ = std::move(file_text);
  base_index_ = 0;
  {
    const QSignalBlocker quiet(&undo_);  // clear() announces cleanChanged; one signal below
    undo_.clear();
  }
  emit scenarioChanged(true);
  if (was_modified) emit modifiedChanged(false);
}

Status ScenarioDocument::open_file(const QString& path) {
  // Read once: the document keeps the text the scenario was loaded from.
  Result<std::string> text = data::read_input_file(path.toStdString(), "scenario");
  Result<planner::Scenario> loaded = text.is_ok() ? data::parse_scenario(*text, path.toStdString())
                                                  : Result<planner::Scenario>(text.status());
  if (!loaded.is_ok()) return loaded.status();
  open(std::make_shared<const planner::Scenario>(std::move(loaded).value()), path, {},
       std::move(text).value());
  return Status::ok();
}

Result<ScenarioPtr> ScenarioDocument::validate_edit(const data::FieldPath& path,
                                                    const QString& value_json) const {
  if (!scenario_) return Status::not_found("no scenario is open");
  const std::string name = name_.isEmpty() ? scenario_->name : name_.toStdString();
  Result<planner::Scenario> edited =
      data::edit_scenario(*scenario_, path, value_json.toStdString(), name);
  if (!edited.is_ok()) return edited.status();
  return ScenarioPtr(std::make_shared<const planner::Scenario>(std::move(edited).value()));
}

bool ScenarioDocument::apply_edit(const data::FieldPath& path, const QString& value_json) {
  Result<ScenarioPtr> edited = validate_edit(path, value_json);
  if (!edited.is_ok()) {
    emit editRefused(QString::fromStdString(edited.status().message()));
    return false;
  }
  edit(std::move(edited).value(),
       QStringLiteral("Edit %1").arg(QString::fromStdString(data::to_string(path))),
       data::FieldEdit{path, value_json.toStdString()});
  return true;
}

Status ScenarioDocument::save() {
  if (path_.isEmpty()) {
    return Status::invalid_argument("the scenario has no file yet: save it as a new file");
  }
  return save(path_);
}

void ScenarioDocument::edit(ScenarioPtr edited, const QString& text,
                            std::optional<data::FieldEdit> field) {
  if (!scenario_) return;
  undo_.push(new ScenarioEditCommand(this, scenario_, std::move(edited), text, std::move(field)));
}

std::string ScenarioDocument::file_text() const {
  const std::string whole = data::scenario_to_json(*scenario_) + "\n";
  if (base_text_.empty() || undo_.index() < base_index_) return whole;
  std::vector<data::FieldEdit> edits;
  for (int i = base_index_; i < undo_.index(); ++i) {
    const auto* step = dynamic_cast<const ScenarioEditCommand*>(undo_.command(i));
    if (step == nullptr || !step->field()) return whole;
    edits.push_back(*step->field());
  }
  Result<std::string> text = data::apply_edits_to_text(base_text_, edits, name_.toStdString());
  if (!text.is_ok()) return whole;
  // Only a file that loads as exactly the current scenario is written.
  Result<planner::Scenario> back = data::parse_scenario(*text, name_.toStdString());
  if (!back.is_ok() || data::scenario_to_json(*back) + "\n" != whole) return whole;
  return std::move(text).value();
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
  const std::string text = file_text();
  if (Status st = data::write_output_file(path.toStdString(), text); !st.is_ok()) return st;
  base_text_ = text;
  base_index_ = undo_.index();
  if (path_ != path) {
    path_ = path;
    emit pathChanged(path_);
  }
  name_ = QFileInfo(path).fileName();
  undo_.setClean();
  return Status::ok();
}

}  // namespace shardlab::gui
