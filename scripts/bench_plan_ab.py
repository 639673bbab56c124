#!/usr/bin/env python3
"""Planning time of two shardlab builds on one scenario, runs interleaved.

For each TorchRec version, runs `shardlab plan SCENARIO --torchrec-version V
--no-record` with build A, then build B, --runs times, and prints the minimum
and the median of the planner's own clock ("planned ... in N ms" on stderr)
for each build, and B's median relative to A's. Interleaving spreads the
machine's drift over both builds, which back-to-back benchmark runs do not.

  scripts/bench_plan_ab.py OLD/shardlab NEW/shardlab SCENARIO [--runs 12]

The scenario of the planning-speed target (1,000 tables on 128 ranks):

  scripts/gen_synthetic_scenario.py --tables 1000 --world-size 128 -o s1000.json
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

VERSIONS = ("2024-02", "2026-08")


def planner_ms(shardlab, scenario, version, out):
    run = subprocess.run([shardlab, "plan", scenario, "--torchrec-version", version, "-o", out,
                          "--no-record"], capture_output=True, text=True)
    m = re.search(r"planned .* in ([0-9.]+) (ms|s)", run.stderr)
    if run.returncode != 0 or not m:
        sys.exit("%s failed (exit %d): %s" % (shardlab, run.returncode, run.stderr.strip()))
    return float(m.group(1)) * (1000.0 if m.group(2) == "s" else 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="build A's shardlab (the baseline)")
    ap.add_argument("b", help="build B's shardlab")
    ap.add_argument("scenario")
    ap.add_argument("--runs", type=int, default=12)
    args = ap.parse_args()
    times = {(build, v): [] for build in "AB" for v in VERSIONS}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "plan.json")
        for _ in range(args.runs):
            for build, shardlab in (("A", args.a), ("B", args.b)):
                for v in VERSIONS:
                    times[(build, v)].append(planner_ms(shardlab, args.scenario, v, out))
    print("version   build  min ms  median ms")
    for v in VERSIONS:
        for build in "AB":
            t = times[(build, v)]
            print("%-9s %-5s %7.1f %10.1f" % (v, build, min(t), statistics.median(t)))
        change = statistics.median(times[("B", v)]) / statistics.median(times[("A", v)]) - 1
        print("%-9s B vs A median %+.1f%%" % (v, 100 * change))


if __name__ == "__main__":
    main()
