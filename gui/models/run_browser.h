// The Runs and Calibration views' access to the run store (data/run_store.h):
// the list of runs, one run's scenario and plan opened in the workbench, the
// difference of two runs, and a calibration run's predicted-versus-measured
// points.
//
// Threading: UI thread only (a RunStore is one SQLite connection used by one
// thread). Store reads are local and short; they run on the UI thread.
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/data/calibration_json.h"
#include "shardlab/data/run_export.h"
#include "shardlab/data/run_store.h"

namespace shardlab::gui {

class Workbench;

// A run difference (data::diff_runs) as an HTML document of tables: fields,
// tables placed differently, per-rank perf and HBM, per-phase medians, each
// with a and b and the delta (b - a), numbers to 4 significant digits.
QString diff_to_html(const data::RunDiff& diff);

// A measurement with what the cost model predicts for it before (TorchRec's
// constants) and after the calibration (kernels::predict_ms).
struct CalibrationPoint {
  std::string group;  // "fwd fused/full", "comm intra_host", ...
  std::string what;   // "rank 3 t_cat_2 shard 0 fwd_compute", "rank 1 output_dist all_to_all"
  double measured_ms = 0.0;
  double before_ms = 0.0;
  double after_ms = 0.0;
  bool held_out = false;  // kept out of the fit to measure its error
};

struct CalibrationData {
  int64_t run_id = 0;
  data::CalibrationProfile profile;
  std::vector<CalibrationPoint> points;  // records with both predictions, fitted ones first
  int skipped = 0;                       // records with nothing to predict
  // The fitted parameters beside TorchRec's (kernels::calibration_parameters).
  std::vector<kernels::CalibrationParameter> parameters;
  // The split the fit used (from the calibrate run's summary; defaults when
  // it does not say).
  double holdout_fraction = 0.0;
  uint64_t seed = 0;
};

class RunBrowser : public QObject {
  Q_OBJECT

 public:
  explicit RunBrowser(Workbench* workbench, QObject* parent = nullptr);
  ~RunBrowser() override;

  // Opens the existing store at `path` and lists its runs; a missing file is
  // an io_error (a mistyped path never creates an empty store). On failure
  // the browser stays as it was and the Status says why (the caller reports
  // it, as every workbench method's).
  Status open(const QString& path);
  bool is_open() const { return store_.has_value(); }
  QString path() const;
  Status refresh();
  const std::vector<data::RunSummary>& runs() const { return runs_; }

  // Records `run` in the store at `path` (created when missing, as the
  // command line's recording verbs do; refused unchanged when it is not a run
  // store or is damaged), then browses that store. Returns the run's id; on
  // failure browses what it did before.
  Result<int64_t> record(const data::NewRun& run, const QString& path);

  // Opens run `id` in the workbench: its scenario, and its plan when it has
  // one (shown instead of planning, then simulated).
  Status open_run(int64_t id);
  // The difference of runs `a` and `b` (deltas are b - a).
  Result<data::RunDiff> diff(int64_t a, int64_t b) const;
  // A calibrate run's profile and its input runs' measurements with the
  // model's predictions before and after.
  Result<CalibrationData> calibration(int64_t id) const;

 signals:
  void runsChanged();

 private:
  Workbench* workbench_;
  std::optional<data::RunStore> store_;
  std::vector<data::RunSummary> runs_;
};

}  // namespace shardlab::gui
