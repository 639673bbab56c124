#!/usr/bin/env python3
"""Checks that code comments and documents name things that exist.

1. Every Status factory (`Status::name`) and status code (`StatusCode::kName`)
   that a source file names, in code or in a comment, is one that
   planner/include/shardlab/planner/status.h declares; a comment names the
   error type `invalid_scenario` of the JSON outputs only in quotes (the
   status code behind it is kInvalidArgument).
2. Every document a comment or a document cites by its path in the
   repository (`docs/NAME.md`, `scripts/NAME.py`, a header as code includes
   it) or by a relative Markdown link exists.
3. Every status code a public header's comments promise (`kInvalidArgument`,
   ...) is checked (`StatusCode::kName`) by a test that includes the header.

Prints one line per problem ("FILE:LINE: ...") and exits 1 when there is any.

  scripts/check_contracts.py [SOURCE_DIR]
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), ".."))
STATUS_H = "planner/include/shardlab/planner/status.h"
# Documents cited by path: the project's docs and scripts, and headers as
# code includes them (planner/placement.h); a path right after another
# repository's name ("microsoft/mscclpp docs/x.md") is that repository's.
CITED = re.compile(r"(?<![\w./-])((?:docs/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)|"
                   r"(?:scripts/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:py|sh))|"
                   r"(?:(?:planner|sim|search|kernels|data|trace|cli|gui)/[A-Za-z0-9_./-]*"
                   r"[A-Za-z0-9_-]\.h))\b")
OTHER_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?: @[0-9a-f]+)? $")
MD_LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")


def tracked(*patterns):
    out = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return [f for f in out.split("\n") if f]


def status_names():
    text = open(os.path.join(ROOT, STATUS_H), encoding="utf-8").read()
    factories = set(re.findall(r"static Status ([a-z_]+)\(", text))
    enum = re.search(r"enum class StatusCode \{([^}]*)\}", text).group(1)
    codes = set(re.findall(r"k[A-Z][A-Za-z]*", enum))
    return factories, codes


def exists_as_cited(path):
    """A path from the repository root, or a header as code includes it
    ("planner/placement.h" for planner/include/shardlab/planner/placement.h),
    or a library's source ("planner/py_format.h" for planner/src/py_format.h)."""
    lib, _, rest = path.partition("/")
    return any(os.path.exists(os.path.join(ROOT, p)) for p in (
        path, os.path.join(lib, "include", "shardlab", path), os.path.join(lib, "src", rest)))


def untested_codes(codes):
    """Item 3: (header, code) pairs whose code no test including the header checks."""
    tests = {}
    for path in tracked("tests/*.cc", "tests/*.h"):
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            tests[path] = f.read()
    problems = []
    for header in tracked("*/include/shardlab/*.h", "*/include/shardlab/*/*.h"):
        if header == STATUS_H:
            continue  # it declares them
        with open(os.path.join(ROOT, header), encoding="utf-8", errors="replace") as f:
            comments = " ".join(line[line.find("//"):] for line in f if "//" in line)
        promised = set(re.findall(r"\b(k[A-Z][A-Za-z]*)\b", comments)) & (codes - {"kOk"})
        if not promised:
            continue
        included = header.split("/include/", 1)[1]
        users = [text for text in tests.values() if included in text]
        for code in sorted(promised):
            if not any("StatusCode::" + code in text for text in users):
                problems.append("%s: promises %s, but no test that includes it checks "
                                "StatusCode::%s" % (header, code, code))
    return problems


def main():
    factories, codes = status_names()
    problems = []
    for path in tracked("*.h", "*.cc", "*.py", "*.md"):
        full = os.path.join(ROOT, path)
        if not os.path.isfile(full) or path.startswith("tests/golden/data"):
            continue
        with open(full, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        source = path.endswith((".h", ".cc"))
        for n, line in enumerate(lines, 1):
            where = "%s:%d" % (path, n)
            if source:
                for name in re.findall(r"\bStatus::([a-z_]+)\b", line):
                    if name not in factories:
                        problems.append("%s: Status::%s is no Status factory (%s)"
                                        % (where, name, ", ".join(sorted(factories))))
                for name in re.findall(r"\bStatusCode::(k[A-Za-z]+)\b", line):
                    if name not in codes:
                        problems.append("%s: StatusCode::%s is no status code" % (where, name))
                comment = line.find("//")
                if comment >= 0:
                    unquoted = re.sub(r'"[^"]*"', "", line[comment:])
                    if re.search(r"\binvalid_scenario\b", unquoted):
                        problems.append("%s: a contract names invalid_scenario; the status code "
                                        "is kInvalidArgument (quote \"invalid_scenario\" for the "
                                        "JSON error type)" % where)
                cited = CITED.findall(line[comment:]) if comment >= 0 else []
            else:
                cited = CITED.findall(line) if path.endswith(".md") else []
                if path.endswith(".md"):
                    base = os.path.dirname(path)
                    for link in MD_LINK.findall(line):
                        if "://" in link:
                            continue
                        if not os.path.exists(os.path.normpath(os.path.join(ROOT, base, link))):
                            problems.append("%s: the link %s names no file" % (where, link))
            for c in cited:
                if "*" in c or "NAME" in c or "<" in c:
                    continue
                at = line.find(c)
                if OTHER_REPOSITORY.search(line[:at]):
                    continue
                if not exists_as_cited(c):
                    problems.append("%s: %s is cited but is not in the repository" % (where, c))
    problems += untested_codes(codes)
    for p in problems:
        print(p)
    print("check_contracts: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
