#!/usr/bin/env python3
"""Draw one simulated iteration as a text Gantt chart, from `shardlab simulate -o` JSON.

    shardlab simulate m.json --plan plan.json -o sim.json -q
    scripts/ascii_gantt.py sim.json --ranks 0 5 12

One row per rank and stream (compute, comm) over the last iteration, which is the one
the steady-state iteration time measures: from the end of the iteration before to the
end of the last. Each phase is drawn with its letter; `.` is idle:

    P prefetch   F fwd_compute   D dense_fwd   d dense_bwd   B bwd_compute
    I input_dist O output_dist   G bwd_output_dist          A dp_allreduce

Default ranks: the busiest rank of each stream (most busy time in the iteration), the
least busy, and rank 0.
"""

import argparse
import json
import sys

LETTERS = {
    "prefetch": "P", "fwd_compute": "F", "dense_fwd": "D", "dense_bwd": "d", "bwd_compute": "B",
    "input_dist": "I", "output_dist": "O", "bwd_output_dist": "G", "dp_allreduce": "A",
}


def window(result):
    """(start, end) of the last iteration: the end of the one before, the end of the last."""
    last = result["iterations"] - 1
    ends = {}
    for rank in result["ranks"]:
        for p in rank["phases"]:
            ends[p["iteration"]] = max(ends.get(p["iteration"], 0.0), p["end_ms"])
    start = ends.get(last - 1, 0.0)
    return start, ends[last]


def busy(rank, stream, start, end):
    total = 0.0
    for p in rank["phases"]:
        if p["stream"] == stream:
            total += max(0.0, min(end, p["end_ms"]) - max(start, p["start_ms"]))
    return total


def row(rank, stream, start, end, width):
    cells = ["."] * width
    scale = width / (end - start)
    for p in rank["phases"]:
        if p["stream"] != stream:
            continue
        a = max(start, p["start_ms"])
        b = min(end, p["end_ms"])
        if b <= a:
            continue
        first = int((a - start) * scale)
        last = max(first + 1, int(round((b - start) * scale)))
        for i in range(first, min(last, width)):
            cells[i] = LETTERS.get(p["phase"], "?")
    return "".join(cells)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("result", help="simulate result JSON (shardlab simulate -o)")
    p.add_argument("--ranks", type=int, nargs="*", help="ranks to draw (default: see above)")
    p.add_argument("--width", type=int, default=100, help="characters for the iteration (default 100)")
    p.add_argument("--title", default="", help="a line printed above the chart")
    args = p.parse_args(argv)
    with open(args.result, encoding="utf-8") as f:
        result = json.load(f)
    start, end = window(result)
    ranks = {r["rank"]: r for r in result["ranks"]}
    if args.ranks:
        chosen = args.ranks
    else:
        by_compute = sorted(ranks.values(), key=lambda r: busy(r, "compute", start, end))
        by_comm = sorted(ranks.values(), key=lambda r: busy(r, "comm", start, end))
        chosen = []
        for r in (0, by_compute[-1]["rank"], by_comm[-1]["rank"], by_compute[0]["rank"]):
            if r not in chosen:
                chosen.append(r)
    if args.title:
        print(args.title)
    print(f"iteration {end - start:.3f} ms ({start:.3f} .. {end:.3f} ms), one character = "
          f"{(end - start) / args.width:.3f} ms")
    for r in chosen:
        for stream in ("compute", "comm"):
            print(f"rank {r:>3} {stream:<7} |{row(ranks[r], stream, start, end, args.width)}|")
    print("  " + "  ".join(f"{v} {k}" for k, v in LETTERS.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
