// Input and output files on POSIX calls: lstat/readlink to find what a path
// names, open(O_EXCL) + fsync + rename for atomic replacement, plain write(2)
// for devices, FIFOs and descriptors. std::filesystem is used only for path
// arithmetic, never for the checks, so every errno reaches the message.
#include "shardlab/data/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "message_text.h"

namespace shardlab::data {
namespace {

namespace fs = std::filesystem;

// Symbolic links followed before giving up (as the kernel's ELOOP limit).
constexpr int kMaxLinkHops = 40;

std::string os_error(int err) { return std::strerror(err); }

Status io_error(const std::string& path, std::string_view doing, const std::string& why) {
  return Status::io_error(internal::printable(path + ": " + std::string(doing) + ": " + why));
}

// The descriptor N when `path` names one of this process's own descriptors:
// /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N or /proc/<pid>/fd/N.
// Those are links the kernel resolves to the open file itself (a pipe, a
// terminal, a file opened for appending), so they are written through the
// descriptor, never replaced.
std::optional<int> own_descriptor(const std::string& path) {
  std::error_code ec;
  const fs::path abs = fs::absolute(fs::path(path), ec).lexically_normal();
  if (ec) return std::nullopt;
  const std::string p = abs.string();
  const std::string pid_prefix = "/proc/" + std::to_string(::getpid()) + "/fd/";
  const std::string_view prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/",
                                       pid_prefix};
  for (const std::string_view prefix : prefixes) {
    if (!p.starts_with(prefix)) continue;
    const std::string_view digits = std::string_view(p).substr(prefix.size());
    int fd = -1;
    const auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
    if (err == std::errc() && end == digits.data() + digits.size() && fd >= 0) return fd;
  }
  return std::nullopt;
}

// What an output path leads to once symbolic links are followed.
struct Target {
  enum Kind { kNew, kRegular, kStream, kDescriptor } kind = kNew;
  std::string path;     // the file to write (the last link's target)
  struct stat st {};    // kRegular: the file's
  int descriptor = -1;  // kDescriptor
};

Result<Target> resolve_output(const std::string& path) {
  std::string p = path;
  for (int hop = 0; hop <= kMaxLinkHops; ++hop) {
    if (std::optional<int> fd = own_descriptor(p)) {
      return Target{.kind = Target::kDescriptor, .path = p, .descriptor = *fd};
    }
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      const int err = errno;
      if (err == ENOENT) return Target{.kind = Target::kNew, .path = p};
      return io_error(path, "cannot write", os_error(err));
    }
    if (S_ISLNK(st.st_mode)) {
      std::string link(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
      const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
      if (n < 0) return io_error(path, "cannot follow the symbolic link", os_error(errno));
      link.resize(static_cast<std::size_t>(n));
      const fs::path target(link);
      p = target.is_absolute() ? link : (fs::path(p).parent_path() / target).string();
      continue;
    }
    if (S_ISREG(st.st_mode)) return Target{.kind = Target::kRegular, .path = p, .st = st};
    if (S_ISDIR(st.st_mode)) {
      return io_error(path, "cannot write",
                      p == path ? "is a directory" : "links to a directory, " + p);
    }
    if (S_ISBLK(st.st_mode)) {
      return io_error(path, "cannot write",
                      "is a block device (a disk); outputs are files, pipes or terminals");
    }
    return Target{.kind = Target::kStream, .path = p};
  }
  return io_error(path, "cannot write", os_error(ELOOP));
}

// Writes all of `text` to `fd`, retrying short writes and interruptions.
// Returns 0 or the errno of the failure.
int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// How `path` reads in a message when the write went to a link's target.
std::string named(const std::string& path, const Target& t) {
  return t.path == path ? path : path + " (-> " + t.path + ")";
}

Status write_through(const std::string& path, const Target& t, std::string_view text) {
  if (t.kind == Target::kDescriptor) {
    if (int err = write_all(t.descriptor, text); err != 0)
      return io_error(named(path, t), "cannot write", os_error(err));
    return Status::ok();
  }
  // No O_CREAT, no O_TRUNC: the device or FIFO exists and is not a file to empty.
  const int fd = ::open(t.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return io_error(named(path, t), "cannot open for writing", os_error(errno));
  const int write_err = write_all(fd, text);
  const int close_err = ::close(fd) == 0 ? 0 : errno;
  if (write_err != 0) return io_error(named(path, t), "cannot write", os_error(write_err));
  if (close_err != 0) return io_error(named(path, t), "cannot write", os_error(close_err));
  return Status::ok();
}

// A name for the temporary file beside `target` that no other writer uses:
// ".<name>.<pid>-<n>.tmp" (hidden, and ending in .tmp should one survive a
// power loss).
std::string temp_name(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  std::string name(1, '.');
  name.append(target.filename().string());
  name.append(".").append(std::to_string(::getpid()));
  name.append("-").append(std::to_string(counter.fetch_add(1))).append(".tmp");
  return (target.parent_path() / name).string();
}

Status write_atomically(const std::string& path, const Target& t, std::string_view text) {
  const fs::path target(t.path);
  const std::string shown = named(path, t);
  if (t.kind == Target::kRegular && ::faccessat(AT_FDCWD, t.path.c_str(), W_OK, AT_EACCESS) != 0) {
    return io_error(shown, "cannot write", os_error(errno));
  }
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = temp_name(target);
    // 0666 less the umask for a new file, as the shell would create it.
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0 && errno != EEXIST) {
      const int err = errno;
      std::string why = os_error(err);
      if (err == ENOENT) {
        const fs::path dir = target.parent_path();
        why += " (no directory " + (dir.empty() ? std::string(".") : dir.string()) + ")";
      } else {
        why += " (creating a temporary file in its directory)";
      }
      return io_error(shown, "cannot write", why);
    }
  }
  if (fd < 0) return io_error(shown, "cannot write", "no free temporary file name beside it");

  const auto fail = [&](std::string_view doing, int err) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return io_error(shown, doing, os_error(err));
  };
  if (t.kind == Target::kRegular) {
    // Keep the replaced file's permission bits (and its owner, where allowed).
    if (::fchmod(fd, t.st.st_mode & 07777) != 0) return fail("cannot set the permissions", errno);
    if (::fchown(fd, t.st.st_uid, t.st.st_gid) != 0) {
      // Only root may give a file away; the group may still be kept.
      (void)!::fchown(fd, static_cast<uid_t>(-1), t.st.st_gid);
    }
  }
  if (int err = write_all(fd, text); err != 0) return fail("cannot write", err);
  if (::fsync(fd) != 0) return fail("cannot write", errno);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return fail("cannot write", errno);
  if (::rename(tmp.c_str(), t.path.c_str()) != 0) return fail("cannot replace", errno);
  // Make the rename itself durable; a failure here loses nothing already written.
  const std::string dir =
      target.parent_path().empty() ? std::string(".") : target.parent_path().string();
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::ok();
}

// What two paths are compared by: device and inode of an existing regular
// file, or the absolute path of a file not yet created.
struct Identity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string new_path;

  bool operator==(const Identity& o) const {
    return exists == o.exists && (exists ? dev == o.dev && ino == o.ino : new_path == o.new_path);
  }
};

std::optional<Identity> identity_of_stat(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return std::nullopt;  // devices, FIFOs, directories are never replaced
  return Identity{.exists = true, .dev = st.st_dev, .ino = st.st_ino};
}

std::optional<Identity> new_file_identity(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(fs::path(path), ec), ec);
  if (ec) return std::nullopt;
  return Identity{.exists = false, .new_path = p.string()};
}

std::optional<Identity> output_identity(const std::string& path) {
  struct stat st {};
  if (path == "-") {
    if (::fstat(STDOUT_FILENO, &st) != 0) return std::nullopt;
    return identity_of_stat(st);
  }
  Result<Target> t = resolve_output(path);
  if (!t) return std::nullopt;  // the write reports it
  switch (t->kind) {
    case Target::kRegular:
      return identity_of_stat(t->st);
    case Target::kNew:
      return new_file_identity(t->path);
    case Target::kDescriptor:
      if (::fstat(t->descriptor, &st) != 0) return std::nullopt;
      return identity_of_stat(st);
    case Target::kStream:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Identity> input_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return identity_of_stat(st);
  // A missing input (a run store not created yet) is still the path it will be.
  if (errno == ENOENT) return new_file_identity(path);
  return std::nullopt;
}

std::string described(const FileRole& f) {
  return (f.path == "-" ? std::string("standard output") : f.path) + " (" + f.role + ")";
}

}  // namespace

Result<std::string> read_input_file(const std::string& path, std::string_view what,
                                    std::size_t max_bytes) {
  const std::string doing = "cannot read " + std::string(what);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) {
      return Status::not_found(internal::printable(path + ": " + doing + ": " + os_error(err)));
    }
    return io_error(path, doing, os_error(err));
  }
  if (S_ISDIR(st.st_mode)) return io_error(path, doing, "is a directory");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    return io_error(path, doing, "not a regular file");
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
    return io_error(path, doing, "larger than " + std::to_string(max_bytes >> 20) + " MiB");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path, doing, os_error(errno));
  std::string text;
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return io_error(path, doing, os_error(err));
    }
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      return io_error(path, doing, "larger than " + std::to_string(max_bytes >> 20) + " MiB");
    }
  }
  ::close(fd);
  return text;
}

Status write_output_file(const std::string& path, std::string_view text) {
  if (path.empty()) return Status::io_error("cannot write: the output path is empty");
  Result<Target> t = resolve_output(path);
  if (!t) return t.status();
  switch (t->kind) {
    case Target::kNew:
    case Target::kRegular:
      return write_atomically(path, *t, text);
    case Target::kStream:
    case Target::kDescriptor:
      return write_through(path, *t, text);
  }
  return Status::internal("write_output_file: unknown target kind");
}

Status check_distinct_files(const std::vector<FileRole>& inputs,
                            const std::vector<FileRole>& outputs) {
  std::vector<std::pair<Identity, const FileRole*>> seen;
  for (const FileRole& in : inputs) {
    if (std::optional<Identity> id = input_identity(in.path)) seen.emplace_back(*id, &in);
  }
  const std::size_t num_inputs = seen.size();
  for (const FileRole& out : outputs) {
    std::optional<Identity> id = output_identity(out.path);
    if (!id) continue;
    for (std::size_t i = 0; i < seen.size(); ++i) {
      if (!(seen[i].first == *id)) continue;
      const bool other_output = i >= num_inputs;
      return Status::invalid_argument(internal::printable(
          described(out) + " is the same file as " + described(*seen[i].second) +
          (other_output ? "; two outputs cannot share a file"
                        : "; writing it would destroy the input") +
          ". Nothing was written: choose another output"));
    }
    seen.emplace_back(*id, &out);
  }
  return Status::ok();
}

}  // namespace shardlab::data
