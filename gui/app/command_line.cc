#include "command_line.h"

#include <QCommandLineParser>
#include <QRegularExpression>

namespace shardlab::gui {

QStringList view_names() {
  return {QStringLiteral("scenario"),    QStringLiteral("topology"), QStringLiteral("plan"),
          QStringLiteral("proposals"),   QStringLiteral("compare"),  QStringLiteral("timeline"),
          QStringLiteral("calibration"), QStringLiteral("runs")};
}

bool parse_command_line(const QStringList& arguments, CommandLine* out, QString* error,
                        bool* help) {
  *help = false;
  *out = CommandLine{};
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "ShardLab workbench: plan, inspect and simulate the sharding of embedding tables.\n"
      "Opens SCENARIO (a scenario file, docs/scenario-format.md), plans it in the background and "
      "shows the\n"
      "plan, the proposals the planner evaluated, the topology and the simulated iteration."));
  parser.addPositionalArgument(QStringLiteral("scenario"), QStringLiteral("Scenario file (JSON)"),
                               QStringLiteral("[SCENARIO]"));
  const QCommandLineOption help_option({QStringLiteral("h"), QStringLiteral("help")},
                                       QStringLiteral("Show this help and exit."));
  const QCommandLineOption plan_option(
      QStringLiteral("plan"),
      QStringLiteral("Show this plan file (written by 'shardlab plan') for "
                     "SCENARIO instead of planning."),
      QStringLiteral("FILE"));
  const QCommandLineOption trace_option(
      QStringLiteral("trace"),
      QStringLiteral("A PyTorch profiler trace of SCENARIO's job (a file per rank, .json or "
                     ".json.gz, or their folder; repeat for more): the Timeline view shows its "
                     "measured lanes under the simulated ones (docs/traces.md)."),
      QStringLiteral("PATH"));
  const QCommandLineOption db_option(QStringLiteral("db"),
                                     QStringLiteral("Run store (SQLite) for the Runs view."),
                                     QStringLiteral("FILE"));
  const QCommandLineOption shot_option(
      QStringLiteral("screenshot"),
      QStringLiteral("Render the view named by --view to FILE (PNG) and exit."),
      QStringLiteral("FILE"));
  const QCommandLineOption view_option(
      QStringLiteral("view"),
      QStringLiteral("View for --screenshot: ") + view_names().join(QStringLiteral(", ")),
      QStringLiteral("NAME"));
  const QCommandLineOption size_option(
      QStringLiteral("size"), QStringLiteral("Size of the --screenshot image (default 1400x860)."),
      QStringLiteral("WxH"));
  parser.addOptions(
      {help_option, plan_option, trace_option, db_option, shot_option, view_option, size_option});
  if (!parser.parse(arguments)) {
    *error = parser.errorText();
    return false;
  }
  if (parser.isSet(help_option)) {
    *help = true;
    *error = parser.helpText();
    return false;
  }
  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1) {
    *error = QStringLiteral("expected at most one scenario file, got: ") +
             positional.join(QLatin1Char(' '));
    return false;
  }
  if (!positional.isEmpty()) out->scenario = positional.front();
  out->plan = parser.value(plan_option);
  out->traces = parser.values(trace_option);
  out->db = parser.value(db_option);
  out->screenshot = parser.value(shot_option);
  out->view = parser.value(view_option);
  if (!out->plan.isEmpty() && out->scenario.isEmpty()) {
    *error = QStringLiteral(
        "--plan needs the scenario the plan was made for: shardlab-gui SCENARIO --plan FILE");
    return false;
  }
  if (!out->traces.isEmpty() && out->scenario.isEmpty()) {
    *error = QStringLiteral(
        "--trace needs the scenario of the traced job: shardlab-gui SCENARIO --trace PATH");
    return false;
  }
  if (!out->screenshot.isEmpty()) {
    if (out->view.isEmpty()) {
      *error = QStringLiteral("--screenshot needs --view NAME (one of ") +
               view_names().join(QStringLiteral(", ")) + QLatin1Char(')');
      return false;
    }
  }
  if (!out->view.isEmpty() && !view_names().contains(out->view)) {
    *error = QStringLiteral("--view: unknown view '%1', expected one of %2")
                 .arg(out->view, view_names().join(QStringLiteral(", ")));
    return false;
  }
  if (parser.isSet(size_option)) {
    static const QRegularExpression kSize(QStringLiteral("^([1-9][0-9]{1,4})x([1-9][0-9]{1,4})$"));
    const auto m = kSize.match(parser.value(size_option));
    if (!m.hasMatch()) {
      *error = QStringLiteral("--size: expected WxH such as 1400x860, got '%1'")
                   .arg(parser.value(size_option));
      return false;
    }
    out->size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
  }
  return true;
}

}  // namespace shardlab::gui
