#!/usr/bin/env python3
"""Recomputes docs/validation.md: ShardLab's simulated iteration of every published run.

For each case of data/scenarios/validation/cases.json it runs

  shardlab simulate SCENARIO --plan PLAN --iterations 6 -q -o -

and prints, as markdown, the measured and simulated time per iteration with the error, the
simulated phases of the slowest rank, the GPU ratios (simulated against measured), and
nccl-tests-style sweeps of all-to-all, all-reduce and reduce-scatter on the presets next to the
published nccl-tests points. Nothing is fitted: the numbers come from the presets and the model.

  scripts/validate_published.py build/cli/shardlab                        # print the tables
  scripts/validate_published.py build/cli/shardlab --write docs/validation.md
  scripts/validate_published.py build/cli/shardlab --check docs/validation.md
  scripts/validate_published.py build/cli/shardlab --figure docs/images/validation.svg

--write replaces the text between the "<!-- generated:begin -->" and "<!-- generated:end -->"
markers of the file, and between "<!-- generated-traces:begin -->" and "<!-- generated-traces:end -->"
the profiler traces' rows where ../shared/traces (or $SHARDLAB_SHARED_DIR/traces) is there;
--check exits 1 when that text differs from what the model gives now.
Exit status: 0 ok, 1 the document is stale (--check), 2 a run failed or bad arguments.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = ROOT / "data" / "scenarios" / "validation"
BEGIN = "<!-- generated:begin -->"
END = "<!-- generated:end -->"
# The rows of the profiler traces in ../shared/traces (or $SHARDLAB_SHARED_DIR/traces): their
# own block, left as it is (and not checked) where the traces are not there.
TRACES_BEGIN = "<!-- generated-traces:begin -->"
TRACES_END = "<!-- generated-traces:end -->"


def traces_dir():
    env = os.environ.get("SHARDLAB_SHARED_DIR")
    return pathlib.Path(env) / "traces" if env else ROOT.parent / "shared" / "traces"


def median(values):
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2.0


def trace_tables(shardlab):
    """Each trace case simulated against its profiler traces: per rank, the measured step,
    GPU-busy time and GPU time waiting for the host (medians over the trace's steps) beside the
    simulated ones."""
    spec = json.loads((CASES / "cases.json").read_text())
    lines = ["| trace | rank | steps | measured step ms | ShardLab ms | error | measured GPU-busy ms | "
             "ShardLab ms | error | measured GPU waits host ms | ShardLab ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for case in spec.get("traces", []):
        folder = traces_dir() / case["trace"]
        out = run([shardlab, "simulate", str(CASES / case["scenario"]), "--plan", str(CASES / case["plan"]),
                   "--iterations", str(ITERATIONS), "-q", "--against", str(folder), "--against-json", "-",
                   "--compact"])
        for r in json.loads(out)["ranks"]:
            rows = {row["what"]: row for row in r["rows"]}
            cells = []
            for what in ("step", "gpu_busy"):
                row = rows[what]
                err = f"{row['error'] * 100:+.1f}%" if row["error"] is not None else "–"
                cells.append(f"{row['measured_ms']:.3f} | {row['simulated_ms']:.3f} | {err}")
            host = rows["gpu_waits_host"]
            simulated = f"{host['simulated_ms']:.3f}" if host["simulated_ms"] is not None else "–"
            cells.append(f"{host['measured_ms']:.3f} | {simulated}")
            lines.append(f"| `{case['trace']}` | {r['rank']} | {r['steps']} | " + " | ".join(cells) + " |")
        notes.append(f"- `{case['trace']}`: {case['source']}. {case['caveat']}")
    return "\n".join(lines + [""] + notes) + "\n"


def replace_block(doc, begin, end, text):
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + text + end + tail
ITERATIONS = 6

# Per-rank phases of the last iteration, in the order the table shows them.
COMPUTE = ["fwd_compute", "dense_fwd", "dense_bwd", "bwd_compute", "dense_optimizer"]
COMM = ["input_dist", "output_dist", "bwd_output_dist", "dp_allreduce", "ddp_allreduce"]

# Published nccl-tests points (docs/presets.md, sources mscclpp-ndmv4 and nccl-tests-212):
# (preset, collective, bytes, what, value, source).
NCCL_TESTS = [
    ("a100-sxm4-80gb", "all_reduce", 1024, "time_us", 16.96, "mscclpp-ndmv4 (NCCL 2.17.1)"),
    ("a100-sxm4-80gb", "all_reduce", 1 << 30, "busbw_gbps", 231.45, "mscclpp-ndmv4 (NCCL 2.17.1)"),
    ("a100-sxm4-80gb", "all_to_all", 1024, "time_us", 9.34, "mscclpp-ndmv4 (NCCL 2.17.1)"),
    ("a100-sxm4-80gb", "all_to_all", 1 << 30, "busbw_gbps", 254.69, "mscclpp-ndmv4 (NCCL 2.17.1)"),
    ("a100-sxm4-80gb", "all_gather", 1024, "time_us", 12.53, "mscclpp-ndmv4 (NCCL 2.17.1)"),
    ("a100-sxm4-80gb", "all_gather", 1 << 30, "busbw_gbps", 253.59, "mscclpp-ndmv4 (NCCL 2.17.1)"),
    ("h100-sxm", "all_reduce", 1024, "time_us", 15.0, "mscclpp docs/dsl (NCCL curve, read off the plot)"),
    ("h100-sxm", "all_reduce", 1 << 20, "algbw_gbps", 50.0, "mscclpp docs/dsl (plot)"),
    ("h100-sxm", "all_reduce", 16 << 20, "algbw_gbps", 130.0, "mscclpp docs/dsl (plot)"),
    ("h100-sxm", "all_reduce", 128 << 20, "algbw_gbps", 225.0, "mscclpp docs/dsl (plot)"),
    ("h100-sxm", "all_reduce", 1 << 30, "algbw_gbps", 275.0, "nccl-tests #212; mscclpp docs/dsl (plot)"),
    ("h100-sxm", "reduce_scatter", 1 << 30, "busbw_gbps", 370.0, "nccl-tests #212 (any non-allreduce)"),
    ("h100-sxm", "all_to_all", 1 << 30, "busbw_gbps", 370.0, "nccl-tests #212 (any non-allreduce)"),
]
SWEEP_SIZES = [8, 1024, 64 << 10, 1 << 20, 16 << 20, 128 << 20, 1 << 30]

# Published multi-node all-reduce bus bandwidths (coreweave/nccl-tests README.md @ cb865533,
# "Expected Performance"; docs/presets.md): (label, scenario, [(bytes, busbw GB/s)], source).
CW = "coreweave/nccl-tests README @ cb865533"
MULTI_NODE_ALL_REDUCE = [
    ("64x H100 (8 DGX H100, NDR 400, SHARP)", "mlperf_dcnv2_dgxh100_n8.json",
     [(512 << 20, 356.01), (1 << 30, 365.90), (4 << 30, 383.23), (8 << 30, 386.56)],
     CW + " (NCCL version not stated)"),
    ("72x GB200 (one NVL72 rack)", "sweep_gb200_nvl72_x1.json",
     [(512 << 20, 586.06), (1 << 30, 681.17), (4 << 30, 839.16), (8 << 30, 834.57)], CW + " (NCCL 2.26.2)"),
    ("144x GB200 (two NVL72 racks, 4x CX-7 400G per tray)", "sweep_gb200_nvl72_x2.json",
     [(512 << 20, 493.94), (1 << 30, 596.10), (4 << 30, 743.09), (8 << 30, 793.06)], CW + " (NCCL 2.26.2)"),
]


def run(cmd):
    env = dict(os.environ, SHARDLAB_NO_RECORD="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    if p.returncode != 0:
        sys.stderr.write(f"failed: {' '.join(map(str, cmd))}\n{p.stderr}")
        sys.exit(2)
    return p.stdout


def simulate(shardlab, case):
    out = run([shardlab, "simulate", str(CASES / case["scenario"]), "--plan", str(CASES / case["plan"]),
               "--iterations", str(ITERATIONS), "-q", "--compact", "-o", "-"])
    result = json.loads(out)
    last = result["iterations"] - 1
    # The rank whose last iteration ends last: its phases are the breakdown.
    best = None
    for r in result["ranks"]:
        phases = {}
        end = 0.0
        for p in r["phases"]:
            if p["iteration"] != last:
                continue
            phases[p["phase"]] = phases.get(p["phase"], 0.0) + p["end_ms"] - p["start_ms"]
            end = max(end, p["end_ms"])
        if best is None or end > best[0]:
            best = (end, r["rank"], phases)
    return result["iteration_ms"], best[1], best[2]


def sweep(shardlab, preset_scenario, collective):
    out = run([shardlab, "sweep", str(preset_scenario), "--collective", collective, "--min-bytes", "8",
               "--max-bytes", str(1 << 30), "--factor", "2", "-o", "-", "--compact"])
    return {int(p["bytes"]): p for p in json.loads(out)["points"]}


def fmt_size(b):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b // scale} {unit}"
    return f"{b} B"


def figure(spec, simulated):
    """An SVG bar chart: measured and simulated ms per iteration of every case."""
    cases = spec["cases"]
    row, label_w, bar_w, top = 34, 190, 420, 44
    scale = bar_w / max(max(c["measured_ms"], simulated[c["id"]]) for c in cases)
    height = top + row * len(cases) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 150}" height="{height}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="18" font-size="14" font-weight="bold">Time per iteration: published '
           '(grey) vs ShardLab (blue), ms</text>',
           '<text x="10" y="34" fill="#555">docs/validation.md; nothing fitted to these runs</text>']
    for i, c in enumerate(cases):
        y = top + i * row
        ms = simulated[c["id"]]
        err = (ms - c["measured_ms"]) / c["measured_ms"] * 100.0
        out.append(f'<text x="10" y="{y + 15}">{c["id"]}</text>')
        out.append(f'<rect x="{label_w}" y="{y + 2}" width="{c["measured_ms"] * scale:.1f}" height="12" '
                   'fill="#9e9e9e"/>')
        out.append(f'<rect x="{label_w}" y="{y + 15}" width="{ms * scale:.1f}" height="12" fill="#1f77b4"/>')
        x = label_w + max(c["measured_ms"], ms) * scale + 6
        out.append(f'<text x="{x:.1f}" y="{y + 19}">{c["measured_ms"]:.2f} vs {ms:.2f} ({err:+.0f}%)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def tables(shardlab, figure_path=None):
    spec = json.loads((CASES / "cases.json").read_text())
    lines = []
    lines.append("| run | GPUs | source | measured ms | timer | ShardLab ms | error |")
    lines.append("|---|---|---|---|---|---|---|")
    simulated = {}
    breakdown = []
    misses = 0
    for case in spec["cases"]:
        ms, rank, phases = simulate(shardlab, case)
        simulated[case["id"]] = ms
        err = (ms - case["measured_ms"]) / case["measured_ms"] * 100.0
        misses += abs(err) > 15.0
        caveat = f" ({case['caveat']})" if "caveat" in case else ""
        lines.append(f"| `{case['id']}` | {case['gpu']} | {case['source']}{caveat} | {case['measured_ms']:.3f} | "
                     f"{case['timer']} | {ms:.3f} | {err:+.1f}% |")
        breakdown.append((case["id"], rank, phases))
    lines.append("")
    lines.append(f"{len(spec['cases']) - misses} of {len(spec['cases'])} runs within ±15%.")
    lines.append("")
    lines.append("Simulated phases of the last iteration on the rank that ends it (ms; compute stream, then "
                 "communication; phases overlap across streams, so they do not add up to the iteration):")
    lines.append("")
    lines.append("| run | rank | " + " | ".join(COMPUTE + COMM) + " |")
    lines.append("|---|---|" + "---|" * (len(COMPUTE) + len(COMM)))
    for cid, rank, phases in breakdown:
        cells = [f"{phases[p]:.3f}" if p in phases else "–" for p in COMPUTE + COMM]
        lines.append(f"| `{cid}` | {rank} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Ratios (slower over faster, MLLOG-derived times on both sides): GPUs, and strong scaling "
                 "across nodes:")
    lines.append("")
    lines.append("| pair | measured | ShardLab | error | note |")
    lines.append("|---|---|---|---|---|")
    by_id = {c["id"]: c for c in spec["cases"]}
    for r in spec["ratios"]:
        measured = by_id[r["slow"]]["mllog_ms"] / by_id[r["fast"]]["mllog_ms"]
        sim = simulated[r["slow"]] / simulated[r["fast"]]
        err = (sim - measured) / measured * 100.0
        lines.append(f"| `{r['slow']}` / `{r['fast']}` | {measured:.3f} | {sim:.3f} | {err:+.1f}% | {r['note']} |")
    if spec.get("increments"):
        lines.append("")
        lines.append("Batch increments (the larger batch's time minus the smaller's, same GPUs and plan: what the "
                     "batch adds, without the per-iteration cost both runs share):")
        lines.append("")
        lines.append("| runs | measured ms | ShardLab ms | error | note |")
        lines.append("|---|---|---|---|---|")
        for inc in spec["increments"]:
            measured = by_id[inc["large"]]["measured_ms"] - by_id[inc["small"]]["measured_ms"]
            sim = simulated[inc["large"]] - simulated[inc["small"]]
            err = (sim - measured) / measured * 100.0
            lines.append(f"| `{inc['large']}` - `{inc['small']}` | {measured:.3f} | {sim:.3f} | {err:+.1f}% | "
                         f"{inc['note']} |")
    lines.append("")
    lines.append("nccl-tests-style sweeps (8 GPUs in one host; `shardlab sweep`), next to the published "
                 "nccl-tests points:")
    presets = {"a100-sxm4-80gb": CASES / "mlperf_dcnv2_a100_80gb.json",
               "h100-sxm": CASES / "mlperf_dcnv2_h100_sxm.json"}
    for preset, scenario in presets.items():
        for collective in ("all_to_all", "all_reduce", "reduce_scatter", "all_gather"):
            points = sweep(shardlab, scenario, collective)
            published = [p for p in NCCL_TESTS if p[0] == preset and p[1] == collective]
            lines.append("")
            lines.append(f"`{preset}`, {collective}:")
            lines.append("")
            lines.append("| size | time µs | algbw GB/s | busbw GB/s | algorithm | protocol | published |")
            lines.append("|---|---|---|---|---|---|---|")
            for size in SWEEP_SIZES:
                p = points[size]
                pub = "; ".join(f"{what.replace('_gbps', ' GB/s').replace('_us', ' µs')} {value:g} ({src})"
                                for (_, _, b, what, value, src) in published if b == size)
                lines.append(f"| {fmt_size(size)} | {p['time_us']:.2f} | {p['algbw_gbps']:.1f} | "
                             f"{p['busbw_gbps']:.1f} | {p['algorithm']} | {p['protocol']} | {pub} |")
    lines.append("")
    lines.append("All-reduce across nodes and racks (`shardlab sweep`), next to published nccl-tests bus "
                 "bandwidths:")
    lines.append("")
    lines.append("| cluster | size | ShardLab busbw GB/s | algorithm | published busbw GB/s | error | source |")
    lines.append("|---|---|---|---|---|---|---|")
    for label, scenario, published, source in MULTI_NODE_ALL_REDUCE:
        out = run([shardlab, "sweep", str(CASES / scenario), "--collective", "all_reduce", "--min-bytes",
                   str(512 << 20), "--max-bytes", str(8 << 30), "--factor", "2", "-o", "-", "--compact"])
        points = {int(p["bytes"]): p for p in json.loads(out)["points"]}
        for size, busbw in published:
            p = points[size]
            err = (p["busbw_gbps"] - busbw) / busbw * 100.0
            lines.append(f"| {label} | {fmt_size(size)} | {p['busbw_gbps']:.1f} | {p['algorithm']} | "
                         f"{busbw:g} | {err:+.1f}% | {source} |")
    if figure_path:
        pathlib.Path(figure_path).write_text(figure(spec, simulated))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shardlab", help="path of the shardlab binary")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="DOC", help="replace the generated part of DOC")
    group.add_argument("--check", metavar="DOC", help="exit 1 when the generated part of DOC is stale")
    ap.add_argument("--figure", metavar="SVG", help="also draw measured against simulated times to SVG")
    args = ap.parse_args()
    text = tables(os.path.abspath(args.shardlab), args.figure)
    if not args.write and not args.check:
        sys.stdout.write(text)
        if traces_dir().is_dir():
            sys.stdout.write("\n" + trace_tables(os.path.abspath(args.shardlab)))
        return 0
    path = pathlib.Path(args.write or args.check)
    doc = path.read_text()
    for begin, end in ((BEGIN, END), (TRACES_BEGIN, TRACES_END)):
        if begin not in doc or end not in doc:
            sys.stderr.write(f"{path}: no {begin} ... {end} markers\n")
            return 2
    new = replace_block(doc, BEGIN, END, text)
    if traces_dir().is_dir():
        new = replace_block(new, TRACES_BEGIN, TRACES_END, trace_tables(os.path.abspath(args.shardlab)))
    else:
        sys.stderr.write(f"{traces_dir()} not found: the trace rows of {path} are left as they are\n")
    if args.write:
        path.write_text(new)
        return 0
    if new != doc:
        sys.stderr.write(f"{path} is stale: run scripts/validate_published.py SHARDLAB --write {path}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
