// One binary runs every QTest class of the workbench: each test file
// registers its class here; main() (gui_test_main.cc) runs them all, or the
// one named on the command line (ctest runs one class per test).
#pragma once

#include <QObject>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shardlab::gui::test {

struct RegisteredTest {
  std::string name;
  std::function<std::unique_ptr<QObject>()> make;
};

inline std::vector<RegisteredTest>& registered_tests() {
  static std::vector<RegisteredTest> tests;
  return tests;
}

struct TestRegistrar {
  TestRegistrar(std::string name, std::function<std::unique_ptr<QObject>()> make) {
    registered_tests().push_back({std::move(name), std::move(make)});
  }
};

}  // namespace shardlab::gui::test

#define SHARDLAB_REGISTER_GUI_TEST(Class)                             \
  static const ::shardlab::gui::test::TestRegistrar kRegister##Class( \
      #Class, []() { return std::unique_ptr<QObject>(new Class()); });
