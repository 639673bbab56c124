#include "backend_module.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#ifndef SHARDLAB_VERSION
#error "SHARDLAB_VERSION must be defined (kernels/CMakeLists.txt)"
#endif

namespace shardlab::kernels {
namespace {

// The directory of the running executable, with a trailing '/'; empty when
// /proc/self/exe cannot be read.
std::string executable_directory() {
  std::string buffer(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", buffer.data(), buffer.size());
  if (n <= 0 || static_cast<size_t>(n) >= buffer.size()) return {};
  buffer.resize(static_cast<size_t>(n));
  const size_t slash = buffer.rfind('/');
  return slash == std::string::npos ? std::string() : buffer.substr(0, slash + 1);
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

std::string dl_error_text() {
  const char* e = dlerror();
  return e != nullptr ? std::string(e) : std::string("unknown dlopen error");
}

}  // namespace

const char* backend_module_version() { return SHARDLAB_VERSION; }
const char* backend_module_compiler() { return __VERSION__; }

Result<const BackendModuleInfo*> open_backend_module(const std::string& path) {
  // Modules stay loaded: cache by path, so a second backend costs no dlopen.
  static std::mutex mutex;
  static std::map<std::string, const BackendModuleInfo*> opened;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = opened.find(path); it != opened.end()) return it->second;

  // RTLD_NOW: a library or symbol the module needs and this host lacks fails
  // here, with dlerror() naming it, not at the first call. RTLD_LOCAL: the
  // module's symbols (its own copies of kernels/ code) stay its own.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return Status::unavailable("cannot load " + path + ": " + dl_error_text());
  auto entry = reinterpret_cast<BackendModuleEntry>(dlsym(handle, kBackendModuleSymbol));
  if (entry == nullptr) {
    const std::string why = dl_error_text();
    dlclose(handle);
    return Status::unavailable(path + " is not a ShardLab backend module (no " +
                               kBackendModuleSymbol + ": " + why + ")");
  }
  const BackendModuleInfo* info = entry();
  auto mismatch = [&](const std::string& what) {
    dlclose(handle);
    return Status::unavailable(path + " was built for another ShardLab (" + what +
                               "); rebuild it with this shardlab, or point to the matching module");
  };
  if (info == nullptr) return mismatch("no module information");
  if (info->abi != kBackendModuleAbi) {
    return mismatch("module interface " + std::to_string(info->abi) + ", expected " +
                    std::to_string(kBackendModuleAbi));
  }
  if (info->shardlab_version == nullptr ||
      std::strcmp(info->shardlab_version, backend_module_version()) != 0) {
    return mismatch(std::string("version ") +
                    (info->shardlab_version ? info->shardlab_version : "?") + ", this is " +
                    backend_module_version());
  }
  if (info->compiler == nullptr || std::strcmp(info->compiler, backend_module_compiler()) != 0) {
    return mismatch(std::string("compiler ") + (info->compiler ? info->compiler : "?") +
                    ", this was built by " + backend_module_compiler());
  }
  if (info->layout != backend_layout_fingerprint())
    return mismatch("different layouts of the shared types");
  if (info->create == nullptr || info->backend == nullptr) return mismatch("no factory");
  opened.emplace(path, info);
  return info;
}

std::vector<std::string> backend_module_candidates(std::string_view file_name,
                                                   const char* env_var) {
  if (const char* env = std::getenv(env_var); env != nullptr && *env != '\0') return {env};
  const std::string dir = executable_directory();
  if (dir.empty()) return {std::string(file_name)};  // the dynamic loader's own search path
  return {dir + std::string(file_name), dir + "../lib/shardlab/" + std::string(file_name)};
}

Result<const BackendModuleInfo*> find_backend_module(std::string_view backend,
                                                     std::string_view file_name,
                                                     const char* env_var) {
  const std::vector<std::string> candidates = backend_module_candidates(file_name, env_var);
  const std::string what = "backend '" + std::string(backend) + "'";
  for (const std::string& path : candidates) {
    // An explicit path, or the first that exists, is the one: its errors are the answer.
    if (candidates.size() > 1 && !file_exists(path)) continue;
    Result<const BackendModuleInfo*> info = open_backend_module(path);
    if (!info) return info.status().with_context(what);
    if (std::string_view((*info)->backend) != backend) {
      return Status::unavailable(what + ": " + path + " is the module of backend '" +
                                 (*info)->backend + "'");
    }
    return info;
  }
  std::string tried;
  for (const std::string& path : candidates) tried += (tried.empty() ? "" : ", ") + path;
  return Status::unavailable(what + ": its module " + std::string(file_name) +
                             " was not found (tried " + tried + "; set " + env_var +
                             " to its path)");
}

}  // namespace shardlab::kernels
