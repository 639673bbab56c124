// Opening backend modules (backend_module.h): a module of this build loads
// and creates its backend; a stale module, a file that is not one, and a
// missing file are refused with the file's name and the loader's reason; and
// how an mpirun launch is recognised without opening any module.

#include "backend_module.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "process_launch.h"
#include "shardlab/kernels/backend.h"

namespace shardlab::kernels {
namespace {

constexpr const char* kVariable = "SHARDLAB_TEST_BACKEND_MODULE";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class BackendModuleTest : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv(kVariable);
    unsetenv("SHARDLAB_CUDA_BACKEND");
  }
};

TEST_F(BackendModuleTest, AModuleOfThisBuildCreatesItsBackend) {
  Result<const BackendModuleInfo*> info = open_backend_module(SHARDLAB_TEST_MODULE);
  ASSERT_TRUE(info) << info.status().message();
  EXPECT_STREQ((*info)->backend, "test");
  auto backend = (*info)->create();
  ASSERT_TRUE(backend) << backend.status().message();
  EXPECT_EQ((*backend)->name(), "test");
  EXPECT_EQ((*backend)->device_name(), "test module");
  // Opened once: the same module information every time.
  Result<const BackendModuleInfo*> again = open_backend_module(SHARDLAB_TEST_MODULE);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *info);
}

TEST_F(BackendModuleTest, TheVariableNamesTheModule) {
  setenv(kVariable, SHARDLAB_TEST_MODULE, 1);
  EXPECT_EQ(backend_module_candidates("libx.so", kVariable),
            std::vector<std::string>{SHARDLAB_TEST_MODULE});
  Result<const BackendModuleInfo*> info = find_backend_module("test", "libx.so", kVariable);
  ASSERT_TRUE(info) << info.status().message();
  EXPECT_STREQ((*info)->backend, "test");
  // The module of another backend is not taken for this one.
  Result<const BackendModuleInfo*> other = find_backend_module("cuda", "libx.so", kVariable);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(contains(other.status().message(), "is the module of backend 'test'"))
      << other.status().message();
}

TEST_F(BackendModuleTest, AModuleOfAnotherInterfaceIsRefused) {
  Result<const BackendModuleInfo*> info = open_backend_module(SHARDLAB_TEST_MODULE_OLD);
  ASSERT_FALSE(info);
  EXPECT_EQ(info.status().code(), StatusCode::kUnavailable);
  const std::string& m = info.status().message();
  EXPECT_TRUE(contains(m, SHARDLAB_TEST_MODULE_OLD)) << m;
  EXPECT_TRUE(contains(m, "module interface " + std::to_string(kBackendModuleAbi + 1000) +
                              ", expected " + std::to_string(kBackendModuleAbi)))
      << m;
}

TEST_F(BackendModuleTest, AMissingFileIsUnavailableWithTheLoadersReason) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "shardlab_no_such_module.so").string();
  setenv(kVariable, path.c_str(), 1);
  Result<const BackendModuleInfo*> info = find_backend_module("test", "libx.so", kVariable);
  ASSERT_FALSE(info);
  EXPECT_EQ(info.status().code(), StatusCode::kUnavailable);
  const std::string& m = info.status().message();
  EXPECT_TRUE(contains(m, "backend 'test': cannot load " + path + ": ")) << m;
  EXPECT_TRUE(contains(m, "No such file")) << m;  // dlerror()'s text
}

TEST_F(BackendModuleTest, AFileThatIsNotASharedLibraryIsRefused) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "shardlab_not_a_module.so").string();
  std::ofstream(path) << "not an ELF file\n";
  Result<const BackendModuleInfo*> info = open_backend_module(path);
  std::remove(path.c_str());
  ASSERT_FALSE(info);
  EXPECT_EQ(info.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(contains(info.status().message(), "cannot load " + path + ": "))
      << info.status().message();
}

TEST_F(BackendModuleTest, ALibraryWithoutTheEntryPointIsRefused) {
  Result<const BackendModuleInfo*> info = open_backend_module("libm.so.6");
  ASSERT_FALSE(info);
  EXPECT_TRUE(contains(info.status().message(), "libm.so.6 is not a ShardLab backend module (no " +
                                                    std::string(kBackendModuleSymbol)))
      << info.status().message();
}

TEST_F(BackendModuleTest, WithoutTheVariableTheModuleIsLookedForNextToTheExecutable) {
  const std::vector<std::string> candidates = backend_module_candidates("libx.so", kVariable);
  ASSERT_EQ(candidates.size(), 2u);
  const std::string dir = std::filesystem::canonical("/proc/self/exe").parent_path().string();
  EXPECT_EQ(candidates[0], dir + "/libx.so");
  EXPECT_EQ(candidates[1], dir + "/../lib/shardlab/libx.so");
  Result<const BackendModuleInfo*> info = find_backend_module("test", "libx.so", kVariable);
  ASSERT_FALSE(info);
  EXPECT_EQ(info.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(contains(info.status().message(), "its module libx.so was not found (tried " +
                                                    candidates[0] + ", " + candidates[1] +
                                                    "; set " + kVariable + " to its path)"))
      << info.status().message();
}

TEST_F(BackendModuleTest, TheCudaBackendIsUnavailableWhenItsModuleIsNot) {
  setenv("SHARDLAB_CUDA_BACKEND", "/nonexistent/libshardlab_cuda_backend.so", 1);
  auto backend = make_backend("cuda");
  ASSERT_FALSE(backend);
  EXPECT_EQ(backend.status().code(), StatusCode::kUnavailable);
#if defined(SHARDLAB_HAVE_CUDA)
  EXPECT_TRUE(contains(backend.status().message(),
                       "backend 'cuda': cannot load /nonexistent/libshardlab_cuda_backend.so: "))
      << backend.status().message();
#else
  EXPECT_TRUE(contains(backend.status().message(), "without CUDA")) << backend.status().message();
#endif
}

class LaunchEnvironment : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name :
         {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_SIZE",
          "PMI_RANK", "MPI_LOCALRANKID"}) {
      unsetenv(name);
    }
  }
};

TEST_F(LaunchEnvironment, OneProcessWithoutALauncher) {
  const ProcessLaunch l = detect_launch();
  EXPECT_EQ(l.size, 1);
  EXPECT_EQ(l.rank, 0);
  EXPECT_EQ(l.local_rank, 0);
  EXPECT_EQ(replay_process_rank(), 0);
}

TEST_F(LaunchEnvironment, OpenMpiVariablesNameTheProcess) {
  setenv("OMPI_COMM_WORLD_SIZE", "16", 1);
  setenv("OMPI_COMM_WORLD_RANK", "11", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
  const ProcessLaunch l = detect_launch();
  EXPECT_EQ(l.size, 16);
  EXPECT_EQ(l.rank, 11);
  EXPECT_EQ(l.local_rank, 3);
  EXPECT_EQ(replay_process_rank(), 11);
}

TEST_F(LaunchEnvironment, PmiVariablesServeOtherLaunchers) {
  setenv("PMI_SIZE", "4", 1);
  setenv("PMI_RANK", "2", 1);
  const ProcessLaunch l = detect_launch();
  EXPECT_EQ(l.size, 4);
  EXPECT_EQ(l.rank, 2);
  EXPECT_EQ(l.local_rank, 2);  // no local rank given: the global one
}

TEST_F(LaunchEnvironment, ValuesThatAreNotCountsAreIgnored) {
  setenv("OMPI_COMM_WORLD_SIZE", "lots", 1);
  setenv("PMI_SIZE", "8", 1);
  setenv("OMPI_COMM_WORLD_RANK", "-1", 1);
  const ProcessLaunch l = detect_launch();
  EXPECT_EQ(l.size, 8);  // the next launcher's variable
  EXPECT_EQ(l.rank, 0);
}

}  // namespace
}  // namespace shardlab::kernels
