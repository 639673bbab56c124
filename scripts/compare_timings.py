#!/usr/bin/env python3
"""Speed-up of ShardLab's planner over TorchRec's, per golden scenario.

Reads a Google Benchmark JSON report of build/benchmarks/planner_bench and
TorchRec's plan() wall times (tests/golden/data/timings.json, or the shared
reference set's), and prints one row per scenario: TorchRec seconds, ShardLab
milliseconds, ratio. Exit status 1 when a scenario that takes TorchRec over
1 s is less than --min-ratio times faster here.

  build/benchmarks/planner_bench --benchmark_filter=golden/ \\
      --benchmark_out=bench.json --benchmark_out_format=json
  scripts/compare_timings.py bench.json
"""
import argparse
import json
import os
import sys


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", help="Google Benchmark JSON report of planner_bench")
    ap.add_argument("--timings", default=os.path.join(here, "..", "..", "shared", "golden", "timings.json"),
                    help="TorchRec timings.json (default: the shared set, else tests/golden/data)")
    ap.add_argument("--min-ratio", type=float, default=100.0, help="required speed-up above 1 s (default 100)")
    ap.add_argument("--torchrec-version", default="2026-08",
                    help="which of ShardLab's model versions to compare (benchmarks golden/NAME/VERSION; "
                         "default 2026-08; docs/torchrec-versions.md)")
    args = ap.parse_args()
    timings_path = args.timings
    if not os.path.exists(timings_path):
        timings_path = os.path.join(here, "..", "tests", "golden", "data", "timings.json")
    torchrec = json.load(open(timings_path))["scenarios"]
    report = json.load(open(args.report))

    ours = {}
    for b in report["benchmarks"]:
        name = b["name"]
        if not name.startswith("golden/"):
            continue
        parts = name.split("/")
        scenario = parts[1]
        # golden/NAME/VERSION[/process_time/real_time]; older reports have no version.
        if len(parts) > 2 and parts[2][:1].isdigit() and parts[2] != args.torchrec_version:
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
        ours[scenario] = b["real_time"] * scale

    failed = False
    print(f"{'scenario':58s} {'TorchRec s':>11s} {'ShardLab ms':>12s} {'ratio':>9s}")
    for scenario, t in sorted(torchrec.items(), key=lambda kv: kv[1]["median_s"] or 0):
        if t["median_s"] is None or scenario not in ours:
            continue
        ratio = t["median_s"] * 1e3 / ours[scenario]
        flag = ""
        if t["median_s"] > 1.0 and ratio < args.min_ratio:
            flag, failed = "  < target", True
        print(f"{scenario:58s} {t['median_s']:11.4f} {ours[scenario]:12.3f} {ratio:9.0f}x{flag}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
