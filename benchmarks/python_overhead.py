#!/usr/bin/env python3
"""What a Python call costs over the C++ planner (docs/python.md "Overhead").

Plans the 1,000-table x 128-rank synthetic scenario (scripts/gen_synthetic_scenario.py
--tables 1000 --world-size 128 --local-world-size 8) with shardlab.plan() and with the CLI,
REPEAT times each, and prints the medians: the planner's own time (the CLI's "planned ...
in X ms"), the CLI process writing the plan, and the Python call returning it as a dict.
The overhead is (Python call - CLI process) / CLI process, and against the planner alone.

    PYTHONPATH=build/python python3 benchmarks/python_overhead.py build/cli/shardlab
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import shardlab

REPEAT = 5
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "cli", "shardlab")
    with tempfile.TemporaryDirectory() as tmp:
        scenario = os.path.join(tmp, "s1000x128.json")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_synthetic_scenario.py"),
                        "--tables", "1000", "--world-size", "128", "--local-world-size", "8",
                        "-o", scenario], check=True)
        planner_ms, cli_ms, python_ms = [], [], []
        env = dict(os.environ, SHARDLAB_NO_RECORD="1")
        for _ in range(REPEAT):
            start = time.perf_counter()
            run = subprocess.run([cli, "plan", scenario, "--no-record", "-o", os.devnull],
                                 check=True, capture_output=True, text=True, env=env)
            cli_ms.append((time.perf_counter() - start) * 1e3)
            found = re.search(r" in ([0-9.]+) (ms|s)\b", run.stdout + run.stderr)
            if found:
                planner_ms.append(float(found.group(1)) * (1e3 if found.group(2) == "s" else 1.0))
            start = time.perf_counter()
            plan = shardlab.plan(scenario)
            python_ms.append((time.perf_counter() - start) * 1e3)
            assert len(plan["tables"]) == 1000
    p, c, y = (statistics.median(v) if v else float("nan") for v in (planner_ms, cli_ms, python_ms))
    print(f"planner (its own clock)   {p:9.1f} ms")
    print(f"CLI process, plan to file {c:9.1f} ms")
    print(f"Python call, plan as dict {y:9.1f} ms")
    print(f"overhead over the CLI:      {100 * (y - c) / c:+.1f}%")
    print(f"overhead over the planner:  {100 * (y - p) / p:+.1f}%")


if __name__ == "__main__":
    main()
