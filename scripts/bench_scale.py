#!/usr/bin/env python3
"""Production-scale planning and simulation: whole-process time and peak memory.

Generates heavy-tailed scenarios with the project's generator
(`gen_synthetic_scenario.py --rows pareto --local-world-size 8`), then for each
size runs, as a user does (a fresh process each time):

    shardlab plan S.json -o plan.json --no-record -q
    shardlab simulate S.json --plan plan.json --no-record -q

and reports wall time and peak resident memory (GNU time's %e and %M), and the
peak the run's memory checks predict: each check, before a large allocation,
compares an estimate with what the budget leaves beside what the process
holds, and a second run with SHARDLAB_MEMORY_REPORT=1 prints each check with
both. The predicted peak is the largest "held + estimate" over the checks;
each check is listed under the table.

    scripts/bench_scale.py build/cli/shardlab [--sizes 5000x1024,10000x4096] [--keep DIR]

The figures in README.md "Production scale" come from this script.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECK = re.compile(r"shardlab: memory: (.*) needs about ([0-9.]+) (B|KiB|MiB|GiB|TiB); "
                   r"the process holds ([0-9.]+) (B|KiB|MiB|GiB|TiB) of the")
UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def timed(cmd, env=None):
    """(exit status, wall seconds, peak KiB, stderr) of one process."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        done = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", t.name, *cmd],
                              capture_output=True, text=True, env=env)
        wall, peak = t.read().split()[-2:]
    return done.returncode, float(wall), int(peak), done.stderr


def estimate(cmd, scratch):
    """(predicted peak in bytes or None, [(check, held, estimate)]): the
    memory checks of the run, as SHARDLAB_MEMORY_REPORT prints them. Its -o
    goes to `scratch`."""
    cmd = [scratch if prev == "-o" else a for prev, a in zip([None, *cmd], cmd)]
    env = dict(os.environ, SHARDLAB_MEMORY_REPORT="1")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    checks = [(m.group(1), float(m.group(4)) * UNITS[m.group(5)],
               float(m.group(2)) * UNITS[m.group(3)]) for m in CHECK.finditer(done.stderr)]
    peak = max((held + need for _, held, need in checks), default=None)
    return peak, checks


def gib(kib_or_bytes, kib=False):
    return (kib_or_bytes * 1024 if kib else kib_or_bytes) / 2**30


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shardlab")
    ap.add_argument("--sizes", default="5000x1024,10000x2048,10000x4096",
                    help="tables x ranks, comma-separated")
    ap.add_argument("--keep", metavar="DIR", help="keep scenarios and plans here")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench_scale_"))
    work.mkdir(parents=True, exist_ok=True)
    print("| run | exit | wall s | peak GiB | predicted peak GiB | peak / predicted |")
    print("|---|---|---|---|---|---|")
    stages = []
    for size in args.sizes.split(","):
        tables, ranks = size.split("x")
        scenario = work / f"heavy_{tables}x{ranks}.json"
        if not scenario.exists():
            subprocess.run([sys.executable, str(HERE / "gen_synthetic_scenario.py"),
                            "--tables", tables, "--world-size", ranks,
                            "--local-world-size", "8", "--rows", "pareto",
                            "-o", str(scenario)], check=True)
        plan = work / f"plan_{tables}x{ranks}.json"
        runs = [
            ("plan", [args.shardlab, "plan", str(scenario), "-o", str(plan),
                      "--no-record", "-q"]),
            ("simulate --plan", [args.shardlab, "simulate", str(scenario), "--plan", str(plan),
                                 "--no-record", "-q"]),
        ]
        for name, cmd in runs:
            rc, wall, peak, err = timed(cmd)
            est, checks = estimate(cmd, str(work / "refused.json"))
            stages.extend((f"{name} {tables} x {ranks}", *c) for c in checks)
            est_text = f"{gib(est):.2f}" if est else "-"
            ratio = f"{gib(peak, kib=True) / gib(est):.2f}" if est else "-"
            print(f"| {name} {tables} x {ranks} | {rc} | {wall:.1f} | "
                  f"{gib(peak, kib=True):.2f} | {est_text} | {ratio} |", flush=True)
            if rc != 0:
                print(f"|   {err.strip().splitlines()[-1][:200]} |||||", flush=True)
                break  # no plan to simulate
    print("\n| run | memory check | held GiB | estimate GiB |")
    print("|---|---|---|---|")
    for run, stage, held, need in stages:
        print(f"| {run} | {stage} | {gib(held):.2f} | {gib(need):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
