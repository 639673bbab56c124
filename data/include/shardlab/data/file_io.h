// Files in and out, for every front end: reading an input with limits,
// writing an output without ever destroying anything, and refusing an output
// that is the same file as an input (docs/outputs.md).
//
// Reading: read_input_file takes a regular file or a pipe (`<(...)`), never a
// device that would not end (/dev/zero) or a directory, and stops past a size.
//
// Writing: write_output_file never leaves a partial file and never replaces
// what it should write through:
//  - a regular file or a new path is written atomically: a temporary file in
//    the same directory, fsync, then a rename over the target. A reader sees
//    the old contents or the new, never a mix; the temporary file is removed
//    whatever fails. A replaced file keeps its permission bits;
//  - a symbolic link is followed (chains too) and its target is written as
//    above; the link itself stays;
//  - anything else is written through (open, write, close; no rename):
//    character devices (/dev/null, a terminal), FIFOs, and this process's own
//    descriptors (/dev/stdout, /dev/fd/N). Block devices and directories are
//    refused;
//  - every failure (no space, no permission, a missing directory, a
//    directory) is an io_error naming the path and the system's reason.
//
// Errors are Status values; messages are one printable line (control bytes
// and invalid UTF-8 in paths escaped as \xNN). Nothing here throws.
//
// Thread safety: the functions are safe to call from several threads, on
// different outputs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "shardlab/planner/status.h"

namespace shardlab::data {

// The largest input read_input_file accepts by default: scenarios and plan
// files (a 100,000-table scenario is about 20 MB).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

// The whole of `path`: a regular file, or a pipe. `what` names the file in
// messages ("scenario", "plan file"). Errors are io_error:
// "<path>: cannot read <what>: <why>", where why is the system's reason, "is
// a directory", "not a regular file" (a device, a socket) or "larger than N
// MiB".
Result<std::string> read_input_file(const std::string& path, std::string_view what,
                                    std::size_t max_bytes = kMaxInputFileBytes);

// Writes `text` to `path` as the header above says. `path` must not be empty;
// "-" is not special here (front ends write stdout themselves). A caller that
// buffers output on its own descriptors (std::cout) flushes it first: /dev/stdout
// is written straight to descriptor 1.
Status write_output_file(const std::string& path, std::string_view text);

// A file a command reads or writes, and what it is to the command, for
// messages ("the scenario", "the run store", "the trace output").
struct FileRole {
  std::string path;  // "-" means standard output
  std::string role;
};

// Refuses, before anything is written, an output that would overwrite an
// input or another output: the same file after following symbolic links
// (compared by device and inode), or the same new path. Only files that
// would be replaced count: outputs that are devices or FIFOs (/dev/null
// twice) are not refused. Errors are kInvalidArgument:
// "<output> (<role>) is the same file as <input> (<role>); nothing was
// written: choose another output".
Status check_distinct_files(const std::vector<FileRole>& inputs,
                            const std::vector<FileRole>& outputs);

}  // namespace shardlab::data
