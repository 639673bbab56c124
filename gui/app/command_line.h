// The command line of shardlab-gui:
//   shardlab-gui [SCENARIO] [--plan FILE] [--trace PATH]... [--db FILE]
//                [--screenshot FILE.png --view NAME] [--size WxH]
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

namespace shardlab::gui {

struct CommandLine {
  QString scenario;    // a scenario file; empty: start empty
  QString plan;        // a plan file to show for the scenario instead of planning
  QStringList traces;  // the job's profiler trace (files or folders): measured lanes
  QString db;          // run store (SQLite)
  QString screenshot;  // render one view to this PNG and exit
  QString view;        // the view --screenshot renders
  QSize size{1400, 860};
};

// The views --screenshot and --view accept, in the window's order.
QStringList view_names();

// Parses `arguments` (argv, program name first). On a usage error returns
// false and sets *error (the help text is in *error for --help, with *help).
bool parse_command_line(const QStringList& arguments, CommandLine* out, QString* error, bool* help);

}  // namespace shardlab::gui
