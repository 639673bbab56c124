#!/usr/bin/env python3
"""Start-up and whole-process times of the shardlab command line.

Measures, as a user runs them (a fresh process each time, JSON in and out, the
run store written):

  start-up    shardlab --version
              shardlab validate data/scenarios/tiny_2gpu.json
  plan        shardlab plan HEAVY -o plan.json --db runs.db
              HEAVY: 1,000 tables on 128 ranks (16 hosts x 8) with heavy-tailed
              row counts (gen_synthetic_scenario.py --rows pareto)
  simulate    shardlab simulate S1024 -o sim.json --db runs.db
              S1024: 1,000 tables on 1,024 ranks (128 hosts x 8), the
              generator's default table mix

and, to show where a whole-process plan spends its time outside the planner
loop, the same plan in parts: `validate HEAVY` (reading, parsing and checking
the scenario) and `plan HEAVY --no-record` (everything but the run store); the
planner loop's own time is the one `plan` reports on stderr ("planned ... in
N ms"), the median over the measured runs' summaries.

The scenarios are generated into a temporary directory (deterministic: same
arguments, same files). Each command runs --warmup times unmeasured, then
--runs times; the table gives the median and the minimum wall time and the
median CPU time (user + system) of the process. With hyperfine on PATH it
does the measuring (CPU time: hyperfine's mean; --no-hyperfine: this
script's own loop).

  scripts/bench_startup.py                      # build/cli/shardlab
  scripts/bench_startup.py --shardlab /usr/local/bin/shardlab --runs 20
  scripts/bench_startup.py --keep-scenarios bench/   # keep the generated scenarios

Wall times need an otherwise idle machine; CPU times are steadier on a busy one.
"""
import argparse
import json
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The scenarios: (file name, generator arguments).
HEAVY = ("heavy_1000_tables_ws128.json",
         ["--tables", "1000", "--world-size", "128", "--rows", "pareto", "--pareto-alpha", "0.5",
          "--max-rows", "1e8"])
WIDE = ("synthetic_1000_tables_ws1024.json", ["--tables", "1000", "--world-size", "1024"])


def generate(work: str, spec) -> str:
    name, args = spec
    path = os.path.join(work, name)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_synthetic_scenario.py"), *args, "-o", path], check=True)
    return path


def own_loop(cmd, warmup: int, runs: int, cwd: str):
    """Wall and CPU seconds of `runs` runs of cmd, after `warmup` runs."""
    for _ in range(warmup):
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return wall, cpu


def hyperfine(cmd, warmup: int, runs: int, cwd: str):
    """The same figures from hyperfine (CPU: its per-run user + system times)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(["hyperfine", "--style", "none", "--warmup", str(warmup), "--runs", str(runs), "-N",
                        "--export-json", out.name, shlex.join(cmd)],
                       cwd=cwd, stdout=subprocess.DEVNULL, check=True)
        result = json.load(open(out.name))["results"][0]
    wall = result["times"]
    user = result.get("user")
    system = result.get("system")
    cpu = [user + system] if user is not None and system is not None else []
    return wall, cpu


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shardlab", default=os.path.join(ROOT, "build", "cli", "shardlab"),
                    help="the shardlab executable (default: build/cli/shardlab)")
    ap.add_argument("--runs", type=int, default=10, help="measured runs per command (default 10)")
    ap.add_argument("--startup-runs", type=int, default=50, help="measured runs of the start-up commands (default 50)")
    ap.add_argument("--warmup", type=int, default=2, help="unmeasured runs first (default 2)")
    ap.add_argument("--no-hyperfine", action="store_true", help="measure with this script's loop even if hyperfine is installed")
    ap.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    ap.add_argument("--keep-scenarios", metavar="DIR",
                    help="also copy the generated scenarios into DIR (e.g. to profile one run with perf)")
    args = ap.parse_args()
    shardlab = os.path.abspath(args.shardlab)
    if not os.access(shardlab, os.X_OK):
        ap.error(f"{shardlab} is not an executable (build it first: cmake --build build --target shardlab)")
    if args.runs < 1 or args.startup_runs < 1 or args.warmup < 0:
        ap.error("--runs and --startup-runs must be >= 1, --warmup >= 0")
    use_hyperfine = not args.no_hyperfine and shutil.which("hyperfine") is not None
    measure = hyperfine if use_hyperfine else own_loop

    with tempfile.TemporaryDirectory(prefix="shardlab_bench_") as work:
        heavy = generate(work, HEAVY)
        wide = generate(work, WIDE)
        if args.keep_scenarios:
            os.makedirs(args.keep_scenarios, exist_ok=True)
            for path in (heavy, wide):
                shutil.copy(path, args.keep_scenarios)
        db = os.path.join(work, "runs.db")
        tiny = os.path.join(ROOT, "data", "scenarios", "tiny_2gpu.json")
        plan_json = os.path.join(work, "plan.json")
        cases = [
            ("start-up: --version", [shardlab, "--version"], args.startup_runs),
            ("start-up: validate tiny_2gpu", [shardlab, "validate", tiny], args.startup_runs),
            ("plan 1,000 tables x 128 ranks, heavy-tailed", [shardlab, "plan", heavy, "-q", "-o", plan_json, "--db", db],
             args.runs),
            ("simulate 1,000 tables x 1,024 ranks", [shardlab, "simulate", wide, "-q", "-o",
                                                     os.path.join(work, "sim.json"), "--db", db], args.runs),
            ("  part: validate (scenario in)", [shardlab, "validate", heavy], args.runs),
            ("  part: plan --no-record (no run store)", [shardlab, "plan", heavy, "-q", "-o", plan_json,
                                                         "--no-record"], args.runs),
        ]
        # What the plan run found (proposals and plans) and the planner loop's
        # own time, from plan's summary line.
        loop_ms = []
        for _ in range(max(args.runs, 1)):
            summary = subprocess.run([shardlab, "plan", heavy, "--no-record", "-o", os.devnull], capture_output=True,
                                     text=True, check=True).stderr.strip()
            found = re.search(r" in ([0-9.]+) ms", summary)
            if found:
                loop_ms.append(float(found.group(1)))
        rows = []
        for label, cmd, runs in cases:
            wall, cpu = measure(cmd, args.warmup, runs, work)
            rows.append({"command": label, "argv": [os.path.basename(cmd[0])] + cmd[1:], "runs": runs,
                         "median_s": statistics.median(wall), "min_s": min(wall),
                         "cpu_s": statistics.median(cpu) if cpu else None})

    print(f"shardlab: {shardlab}; measured with {'hyperfine' if use_hyperfine else 'a loop of subprocess runs'}")
    print(f"plan scenario: {summary}")
    print()
    print("| command | runs | median | min | CPU (user + sys) |")
    print("|---|---|---|---|---|")
    for r in rows:
        cpu = ms(r["cpu_s"]) if r["cpu_s"] is not None else "n/a"
        print(f"| {r['command']} | {r['runs']} | {ms(r['median_s'])} | {ms(r['min_s'])} | {cpu} |")
    loop_s = statistics.median(loop_ms) / 1e3 if loop_ms else None
    if loop_s is not None:
        print(f"| planner loop (plan's summary, wall) | {len(loop_ms)} | {ms(loop_s)} | {ms(min(loop_ms) / 1e3)} | |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"shardlab": shardlab, "hyperfine": use_hyperfine, "plan_summary": summary, "rows": rows,
                       "planner_loop_s": loop_s}, f,
                      indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
