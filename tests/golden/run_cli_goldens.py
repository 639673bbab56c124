#!/usr/bin/env python3
"""End-to-end parity through the command line, as users and reviewers run it.

For every golden pair of every set of tests/golden/golden_sets.json (the
bundled folders, then the shared reference sets beside the repository, or
under $SHARDLAB_SHARED_DIR, when present), runs `shardlab plan SCENARIO --torchrec-version V -o PLAN` and
`shardlab options SCENARIO --torchrec-version V -o OPTIONS`, then
compare_golden.py on the outputs. Prints one line per scenario and
"N passed, N failed" at the end.

usage: run_cli_goldens.py SHARDLAB_BINARY SOURCE_DIR [--max-mb 50]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def golden_sets(source_dir):
    """tests/golden/golden_sets.json, which golden_files.cc reads too."""
    with open(os.path.join(source_dir, "tests", "golden", "golden_sets.json"), encoding="utf-8") as f:
        return json.load(f)["sets"]


def pairs(source_dir, max_bytes):
    shared = os.environ.get("SHARDLAB_SHARED_DIR") or os.path.join(source_dir, "..", "shared")
    for entry in golden_sets(source_dir):
        version = entry["version"]
        prefixes = tuple(entry["prefixes"])
        excluded = set(entry["excluded"])
        seen = set()
        for d in (os.path.join(source_dir, entry["bundled"]), os.path.join(shared, entry["shared"])):
            if not os.path.isdir(d):
                continue
            for f in sorted(os.listdir(d)):
                if not f.endswith(".golden.json"):
                    continue
                name = f[: -len(".golden.json")]
                if (prefixes and not name.startswith(prefixes)) or name in excluded:
                    continue
                scenario = os.path.join(d, name + ".json")
                golden = os.path.join(d, f)
                if name in seen or not os.path.exists(scenario) or os.path.getsize(golden) > max_bytes:
                    continue
                seen.add(name)
                yield version, name, scenario, golden


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shardlab")
    ap.add_argument("source_dir")
    ap.add_argument("--max-mb", type=int, default=50)
    args = ap.parse_args()
    compare = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_golden.py")
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for version, name, scenario, golden in pairs(args.source_dir, args.max_mb << 20):
            plan = os.path.join(tmp, name + "." + version + ".plan.json")
            options = os.path.join(tmp, name + "." + version + ".options.json")
            rc = subprocess.run([args.shardlab, "plan", scenario, "--torchrec-version", version, "-o", plan, "-q"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            subprocess.run([args.shardlab, "options", scenario, "--torchrec-version", version, "-o", options, "-q"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            out = subprocess.run([sys.executable, compare, golden, plan, str(rc), options],
                                 capture_output=True, text=True)
            ok = out.returncode == 0
            passed += ok
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {version} {name}: {out.stdout.strip()}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
