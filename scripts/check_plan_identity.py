#!/usr/bin/env python3
"""Check that two builds of shardlab plan byte-identically.

A change to the planner's speed must not change a plan, a rating, a proposal
count or an error. This script generates a set of scenarios of different
shapes (both generators, sizes, host widths, HBM from roomy to too tight),
plans each with both TorchRec versions using a reference build and a new build,
and compares the `plan -o` outputs byte for byte (errors included: the error
JSON and the exit status).

    scripts/check_plan_identity.py OLD/shardlab NEW/shardlab [--keep DIR]

Prints one line per run and exits 1 when any output differs. The scenarios are
deterministic (both generators' outputs are functions of their arguments).
"""
import argparse
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (generator, arguments): 27 shapes, the last three those of the benchmarks.
SHAPES = [
    ("synthetic", "--tables 50 --world-size 8 --local-world-size 8"),
    ("synthetic", "--tables 200 --world-size 16 --local-world-size 8 --seed 3"),
    ("synthetic", "--tables 500 --world-size 64 --local-world-size 8 --rows pareto"),
    ("synthetic", "--tables 1000 --world-size 128 --local-world-size 8"),
    ("synthetic", "--tables 1000 --world-size 128 --local-world-size 8 --rows pareto --seed 7"),
    ("synthetic", "--tables 300 --world-size 32 --local-world-size 4 --seed 11"),
    ("synthetic", "--tables 400 --world-size 256 --local-world-size 8 --rows pareto --seed 5"),
    ("synthetic", "--tables 800 --world-size 512 --local-world-size 8 --rows pareto --seed 2"),
    ("synthetic", "--tables 2000 --world-size 1024 --local-world-size 8 --rows pareto --seed 9"),
    ("synthetic", "--tables 150 --world-size 24 --local-world-size 8 --hbm-cap '2 GB'"),
    ("synthetic", "--tables 600 --world-size 64 --local-world-size 8 --hbm-cap '6 GB' --seed 4"),
    ("synthetic", "--tables 100 --world-size 8 --local-world-size 8 --hbm-cap '300 MB'"),
    ("synthetic", "--tables 250 --world-size 16 --local-world-size 2 --optimizer adam --seed 8"),
    ("synthetic", "--tables 700 --world-size 96 --local-world-size 8 --batch-size 2048 --seed 12"),
    ("synthetic", "--tables 120 --world-size 12 --local-world-size 4 --optimizer none --seed 13"),
    ("synthetic", "--tables 1500 --world-size 256 --local-world-size 8 --rows pareto --pareto-alpha 0.8 --seed 14"),
    ("heavy", "--tables 300 --world-size 16 --seed 1"),
    ("heavy", "--tables 1000 --world-size 128 --seed 2"),
    ("heavy", "--tables 500 --world-size 64 --tight-hbm 0.9 --seed 3"),
    ("heavy", "--tables 200 --world-size 8 --tight-hbm 1.2 --seed 4"),
    ("heavy", "--tables 800 --world-size 32 --seed 5"),
    ("heavy", "--tables 2000 --world-size 256 --seed 6"),
    ("heavy", "--tables 400 --world-size 128 --tight-hbm 0.5 --seed 7"),
    ("heavy", "--tables 100 --world-size 4 --seed 8"),
    ("synthetic", "--tables 5000 --world-size 1024 --local-world-size 8 --rows pareto"),
    # The 1,000 x 128 heavy-tailed scenario of scripts/bench_startup.py, and its wide one.
    ("synthetic", "--tables 1000 --world-size 128 --rows pareto --pareto-alpha 0.5 --max-rows 1e8"),
    ("synthetic", "--tables 1000 --world-size 1024"),
]
VERSIONS = ["2024-02", "2026-08"]
GENERATORS = {
    "synthetic": HERE / "gen_synthetic_scenario.py",
    "heavy": HERE / "gen_heavy_tailed_scenario.py",
}


def plan(binary, scenario, version, out):
    started = time.monotonic()
    done = subprocess.run([binary, "plan", str(scenario), "--torchrec-version", version,
                           "--no-record", "-q", "-o", str(out)],
                          capture_output=True, text=True)
    return done.returncode, time.monotonic() - started


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old", help="the reference build's shardlab")
    ap.add_argument("new", help="the build under test")
    ap.add_argument("--keep", metavar="DIR", help="keep scenarios and plans here")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="plan_identity_"))
    work.mkdir(parents=True, exist_ok=True)
    differ = 0
    for i, (gen, gen_args) in enumerate(SHAPES):
        scenario = work / f"s{i:02d}.json"
        subprocess.run([sys.executable, str(GENERATORS[gen]), *shlex.split(gen_args),
                        "-o", str(scenario)], check=True, capture_output=True)
        for version in VERSIONS:
            old_out = work / f"s{i:02d}_{version}_old.json"
            new_out = work / f"s{i:02d}_{version}_new.json"
            old_rc, old_s = plan(args.old, scenario, version, old_out)
            new_rc, new_s = plan(args.new, scenario, version, new_out)
            same = old_rc == new_rc and old_out.read_bytes() == new_out.read_bytes()
            differ += not same
            print(f"{'same' if same else 'DIFFERENT'}  {gen} {gen_args}  TorchRec {version}: "
                  f"exit {old_rc}/{new_rc}, {old_s:.2f} s -> {new_s:.2f} s", flush=True)
    print(f"{len(SHAPES) * len(VERSIONS) - differ} of {len(SHAPES) * len(VERSIONS)} identical"
          f" (scenarios and plans in {work})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
