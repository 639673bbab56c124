#!/usr/bin/env python3
"""Benchmark `shardlab optimize` on a set of scenarios (docs/optimize.md).

For each scenario: TorchRec's plan (`shardlab plan`) and its simulated iteration time
(`shardlab simulate`); then, for each time limit, `shardlab optimize` with that limit
and the plan it writes re-rated by TorchRec's model (`shardlab plan --plan`) and
simulated. Reported per model: simulated iteration time of both plans, the gain
(1 - optimized / TorchRec), TorchRec's rating of both, whether the optimized plan fits
every rank after the storage reservation (from the plan file's `devices`), and the
wall time of the optimize run. At the end: the geometric-mean gain per time limit,
the worst model, and whether every plan fits.

    scripts/bench_optimize.py --suite bench/optimize               # default time limit
    scripts/bench_optimize.py --suite bench/optimize --time-limits 1 5 15 60 -o curve.json
    scripts/bench_optimize.py --suite bench/optimize --jobs 2      # two models at a time

Each optimize run is single-threaded; --jobs runs that many models side by side (give
each a core of its own, or the time limits buy less search).

The suite directory is generated with scripts/gen_heavy_tailed_scenario.py --suite
when it does not exist yet. No run is recorded in a run store.
"""

import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return p


def simulate(shardlab, scenario, plan, tmp, env):
    out = os.path.join(tmp, "sim.json")
    run([shardlab, "simulate", scenario, "--plan", plan, "-o", out, "-q"], env)
    with open(out, encoding="utf-8") as f:
        return json.load(f)["iteration_ms"]


def rating_and_fit(shardlab, scenario, plan, tmp, env):
    """TorchRec's rating of `plan` and whether every rank fits after the reservation."""
    out = os.path.join(tmp, "rated.json")
    run([shardlab, "plan", scenario, "--plan", plan, "-o", out, "-q"], env)
    with open(out, encoding="utf-8") as f:
        rated = json.load(f)
    fits = all(d["hbm_used"] <= d["hbm_available"] and d["ddr_used"] <= d["ddr_available"]
               for d in rated["devices"])
    return rated["perf_rating_ms"], fits


def bench_model(shardlab, scenario, limits, seed, tmp, env, extra):
    with open(scenario, encoding="utf-8") as f:
        s = json.load(f)
    topo = s["topology"]
    row = {
        "model": s["name"],
        "tables": len(s["tables"]),
        "ranks": topo["world_size"],
        "hosts": topo["world_size"] // topo.get("local_world_size", topo["world_size"]),
        "tight_hbm": "tight" in s["name"],
        "dense": "workload" in s,
    }
    torchrec = os.path.join(tmp, "torchrec.json")
    run([shardlab, "plan", scenario, "-o", torchrec, "-q"], env)
    row["torchrec_sim_ms"] = simulate(shardlab, scenario, torchrec, tmp, env)
    row["torchrec_rating_ms"], _ = rating_and_fit(shardlab, scenario, torchrec, tmp, env)
    row["runs"] = []
    for limit in limits:
        out = os.path.join(tmp, "optimized.json")
        cmd = [shardlab, "optimize", scenario, "-o", out, "-q", "--seed", str(seed)] + extra
        if limit is not None:
            cmd += ["--time-limit", str(limit)]
        start = time.monotonic()
        run(cmd, env)
        wall = time.monotonic() - start
        sim_ms = simulate(shardlab, scenario, out, tmp, env)
        rating, fits = rating_and_fit(shardlab, scenario, out, tmp, env)
        row["runs"].append({
            "time_limit_s": limit,
            "wall_s": round(wall, 2),
            "optimized_sim_ms": sim_ms,
            "optimized_rating_ms": rating,
            "gain": 1.0 - sim_ms / row["torchrec_sim_ms"],
            "fits": fits,
        })
    return row


def label(limit):
    return "default" if limit is None else f"{limit:g} s"


def print_table(rows, limits, at, out):
    last = limits.index(at)
    out.write("| model | tables | ranks | hosts | TorchRec sim ms | optimized sim ms | gain | "
              "TorchRec rating ms (TorchRec plan) | TorchRec rating ms (optimized) | fits | wall s |\n")
    out.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n")
    for r in rows:
        o = r["runs"][last]
        out.write(f"| {r['model']} | {r['tables']} | {r['ranks']} | {r['hosts']} | "
                  f"{r['torchrec_sim_ms']:.4g} | {o['optimized_sim_ms']:.4g} | {o['gain'] * 100:.1f}% | "
                  f"{r['torchrec_rating_ms']:.4g} | {o['optimized_rating_ms']:.4g} | "
                  f"{'yes' if o['fits'] else 'NO'} | {o['wall_s']:.1f} |\n")
    out.write("\n")
    for i, limit in enumerate(limits):
        gains = [r["runs"][i]["gain"] for r in rows]
        geo = 1.0 - math.exp(sum(math.log(1.0 - g) for g in gains) / len(gains))
        worst = min(rows, key=lambda r: r["runs"][i]["gain"])
        fits = all(r["runs"][i]["fits"] for r in rows)
        wall = max(r["runs"][i]["wall_s"] for r in rows)
        out.write(f"time limit {label(limit)}: geometric-mean gain {geo * 100:.1f}%, worst "
                  f"{worst['runs'][i]['gain'] * 100:.1f}% ({worst['model']}), every plan fits: "
                  f"{'yes' if fits else 'NO'}, longest run {wall:.1f} s\n")


def print_curve(rows, limits, out):
    """Gain per model and time limit, and the geometric mean per limit."""
    out.write("\n| model | " + " | ".join(label(l) for l in limits) + " |\n")
    out.write("|---|" + "---:|" * len(limits) + "\n")
    for r in rows:
        out.write(f"| {r['model']} | " + " | ".join(f"{x['gain'] * 100:.1f}%" for x in r["runs"]) + " |\n")
    geo = []
    for i in range(len(limits)):
        logs = [math.log(1.0 - r["runs"][i]["gain"]) for r in rows]
        geo.append(f"**{(1.0 - math.exp(sum(logs) / len(logs))) * 100:.1f}%**")
    out.write("| geometric mean | " + " | ".join(geo) + " |\n")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shardlab", default=os.path.join(HERE, "..", "build", "cli", "shardlab"),
                   help="the shardlab binary (default: build/cli/shardlab)")
    p.add_argument("--suite", required=True, help="directory of scenario files (generated when missing)")
    p.add_argument("--time-limits", type=float, nargs="*", default=None,
                   help="time limits in seconds, one optimize run each (default: the default limit)")
    p.add_argument("--seed", type=int, default=1, help="seed of every optimize run (default 1)")
    p.add_argument("--only", nargs="*", default=None, help="only these model names")
    p.add_argument("--optimize-arg", action="append", default=[],
                   help="extra argument for shardlab optimize (repeatable)")
    p.add_argument("--table-at", type=float, default=None,
                   help="time limit whose runs the per-model table shows (default: the last)")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="models benchmarked side by side, one process each (default 1)")
    p.add_argument("-o", "--output", help="also write the rows as JSON to this file")
    args = p.parse_args(argv)

    if not os.path.isdir(args.suite):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_heavy_tailed_scenario.py"), "--suite",
                        args.suite], check=True)
    limits = args.time_limits if args.time_limits else [None]
    env = dict(os.environ, SHARDLAB_NO_RECORD="1")
    scenarios = sorted(os.path.join(args.suite, f) for f in os.listdir(args.suite) if f.endswith(".json"))
    if args.only:
        scenarios = [s for s in scenarios if os.path.splitext(os.path.basename(s))[0] in args.only]

    def one(scenario):
        with tempfile.TemporaryDirectory() as tmp:
            row = bench_model(args.shardlab, scenario, limits, args.seed, tmp, env, args.optimize_arg)
        gains = ", ".join(f"{label(l)} {r['gain'] * 100:.1f}%" for l, r in zip(limits, row["runs"]))
        print(f"{row['model']}: TorchRec {row['torchrec_sim_ms']:.4g} ms; {gains}", file=sys.stderr,
              flush=True)
        return row

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(one, scenarios))  # in the scenarios' order
    at = limits[-1] if args.table_at is None else args.table_at
    if at not in limits:
        p.error(f"--table-at {at:g} is not one of --time-limits")
    print_table(rows, limits, at, sys.stdout)
    if len(limits) > 1:
        print_curve(rows, limits, sys.stdout)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump({"time_limits": limits, "seed": args.seed, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
