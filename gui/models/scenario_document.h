// The scenario being edited, as a document: the current scenario (an
// immutable snapshot), the file it was opened from or saved to, its undo
// history and whether it has unsaved edits.
//
// Every edit is a whole validated scenario (scenario_edit.h) pushed on a
// QUndoStack; undo and redo make an earlier or later snapshot current again
// (the same object, so results computed for it are recognised as current).
// Saving writes the scenario file atomically (write to a temporary file, then
// rename; a failed save leaves the old file) and marks the history clean.
// What it writes: the file as it was opened (or last saved) with the edits
// since applied (data::apply_edits_to_text: no defaults written out, keys in
// their order) when every step since carries its field edit and the result
// loads as the current scenario; otherwise the whole scenario
// (scenario_writer.h).
//
// Threading: UI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <optional>
#include <string>

#include "models/planning_job.h"
#include "shardlab/data/scenario_edit.h"
#include "shardlab/planner/status.h"

namespace shardlab::gui {

class ScenarioDocument : public QObject {
  Q_OBJECT

 public:
  explicit ScenarioDocument(QObject* parent = nullptr);

  const ScenarioPtr& scenario() const { return scenario_; }
  // The file the scenario was opened from or last saved to; empty when it
  // has none (e.g. a run store's scenario).
  const QString& path() const { return path_; }
  // A short name for titles and messages: the file name, or the origin given to open().
  const QString& name() const { return name_; }
  // Edits since it was opened or last saved.
  bool modified() const { return !undo_.isClean(); }
  QUndoStack* undo_stack() { return &undo_; }
  // What made the scenario current: "Edit batch_size", "Undo Edit batch_size"
  // (empty for a new document).
  const QString& last_change() const { return last_change_; }

  // Makes `scenario` the document, forgetting the history. `path`: its file
  // (empty: none); `name`: how to call it (the file name when empty);
  // `file_text`: the text it was loaded from (empty: none, save writes the
  // whole scenario).
  void open(ScenarioPtr scenario, const QString& path, const QString& name = {},
            std::string file_text = {});
  // Loads a scenario file as the document. On failure nothing changes and
  // the reader's or loader's Status is returned: kNotFound for no such file,
  // kIo for one that cannot be read (a directory, a device),
  // kInvalidArgument for one that is not a valid scenario.
  Status open_file(const QString& path);
  // One field edit validated under the loader's rules (scenario_edit.h),
  // without changing the document: kNotFound when no scenario is open, the
  // loader's kInvalidArgument for a refused value.
  Result<ScenarioPtr> validate_edit(const data::FieldPath& path, const QString& value_json) const;
  // validate_edit() then edit(); a refusal emits editRefused(message) and
  // returns false.
  bool apply_edit(const data::FieldPath& path, const QString& value_json);
  // Makes `edited` current as one undoable step described by `text` ("Edit
  // batch_size"); nothing without an open scenario. `field`: the one field
  // the step set (written into the file on save), or none for a step that
  // changed more (the whole scenario is then written).
  void edit(ScenarioPtr edited, const QString& text,
            std::optional<data::FieldEdit> field = std::nullopt);
  // edit() of a one-field step (the scenario models' scenarioEdited).
  void apply_field_edit(ScenarioPtr edited, const QString& text, const data::FieldEdit& field) {
    edit(std::move(edited), text, field);
  }
  // Writes the scenario to `path` (scenario_writer.h), which then becomes
  // path(); the history is marked clean. On failure nothing changes:
  // kNotFound without a scenario, the writer's failure otherwise.
  Status save(const QString& path);
  // save(path()); kInvalidArgument when the document has no file yet.
  Status save();

 signals:
  // The current scenario changed: a new document (`replaced`), or an edit,
  // undo or redo of this one.
  void scenarioChanged(bool replaced);
  void modifiedChanged(bool modified);
  void pathChanged(const QString& path);
  // An edit was refused (apply_edit, or a scenario model's): why.
  void editRefused(const QString& message);

 private:
  friend class ScenarioEditCommand;
  void make_current(ScenarioPtr scenario, const QString& change);

  // What save() writes (see the class comment).
  std::string file_text() const;

  ScenarioPtr scenario_;
  // The file's text as opened or last saved, and the undo index it matches.
  std::string base_text_;
  int base_index_ = 0;
  QString path_;
  QString name_;
  QString last_change_;
  QUndoStack undo_;
};

}  // namespace shardlab::gui
