// Runs the workbench's QTest classes (test_registry.h):
//   gui_tests                 every class
//   gui_tests CLASS [ARGS]    one class, with QTest's arguments (-v2, function names, ...)
// Set QT_QPA_PLATFORM=offscreen where there is no display (ctest does).
#include <QApplication>
#include <QTest>
#include <cstdio>
#include <cstring>

#include "test_registry.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  std::string only;
  std::vector<char*> args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (only.empty() && argv[i][0] != '-' && i == 1) {
      only = argv[i];
    } else {
      args.push_back(argv[i]);
    }
  }
  int failed = 0;
  bool ran = false;
  for (const auto& t : shardlab::gui::test::registered_tests()) {
    if (!only.empty() && t.name != only) continue;
    ran = true;
    std::unique_ptr<QObject> test = t.make();
    failed += QTest::qExec(test.get(), static_cast<int>(args.size()), args.data());
  }
  if (!ran) {
    std::fprintf(stderr, "gui_tests: no test class named '%s'\n", only.c_str());
    return 2;
  }
  return failed == 0 ? 0 : 1;
}
