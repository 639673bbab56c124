#!/usr/bin/env python3
"""Generate a synthetic ShardLab scenario: T embedding tables over W ranks.

The output is a deterministic function of the arguments: the same arguments
give byte-identical JSON on any Python 3 (only random.Random.random() is used,
which is stable across versions). The bundled data/scenarios/large_synthetic_8x8.json
is this script's output with its default arguments:

    scripts/gen_synthetic_scenario.py -o data/scenarios/large_synthetic_8x8.json

Table mix:
  rows              log-uniform in [--min-rows, --max-rows] (--rows log-uniform, the
                    default), or heavy-tailed (--rows pareto): a Pareto distribution
                    with exponent --pareto-alpha truncated to [--min-rows, --max-rows],
                    so most tables are small and a few are orders of magnitude larger
  embedding_dim     uniform over {16, 32, 64, 128, 256}
  features          1 (probability 85%), else 2 or 3; one pooling factor per feature
  pooling factors   log-uniform in [1, 40], one decimal
  is_weighted       exactly round(10% of T) tables, chosen at random
  data_type         fp16 for exactly round(25% of T) tables, chosen at random; else fp32

Everything else (bandwidths, proposers, partitioner, storage reservation) is left
to the scenario format's defaults, so the planner runs as TorchRec would.
"""

import argparse
import json
import math
import random
import sys

DIMS = (16, 32, 64, 128, 256)
MIN_POOLING = 1.0
MAX_POOLING = 40.0
P_MULTI_FEATURE = 0.15
SHARE_WEIGHTED = 0.10
SHARE_FP16 = 0.25


def log_uniform(u: float, lo: float, hi: float) -> float:
    """Maps u in [0, 1) to [lo, hi] on a log scale."""
    return math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))


def bounded_pareto(u: float, lo: float, hi: float, alpha: float) -> float:
    """Maps u in [0, 1) to [lo, hi] by the inverse CDF of a Pareto distribution of
    exponent alpha truncated to [lo, hi]."""
    return lo / (1.0 - u * (1.0 - (lo / hi) ** alpha)) ** (1.0 / alpha)


def draw_rows(u: float, args: argparse.Namespace) -> int:
    if args.rows == "pareto":
        return int(round(bounded_pareto(u, args.min_rows, args.max_rows, args.pareto_alpha)))
    return int(round(log_uniform(u, args.min_rows, args.max_rows)))


def make_table(rng: random.Random, index: int, width: int, args: argparse.Namespace):
    # Draw a fixed number of values per table, whatever the branches take, so one
    # table's choices never shift the next table's.
    u_rows, u_dim, u_multi, u_nfeat = (rng.random() for _ in range(4))
    u_pool = [rng.random() for _ in range(3)]

    name = f"syn{index:0{width}d}"
    rows = draw_rows(u_rows, args)
    dim = DIMS[min(int(u_dim * len(DIMS)), len(DIMS) - 1)]
    num_features = 1 if u_multi >= P_MULTI_FEATURE else (2 if u_nfeat < 0.5 else 3)
    pooling = [round(log_uniform(u, MIN_POOLING, MAX_POOLING), 1) for u in u_pool[:num_features]]

    table = {
        "name": name,
        "num_embeddings": rows,
        "embedding_dim": dim,
        "feature_names": [f"{name}_f{i}" for i in range(num_features)],
        "data_type": "fp32",
    }
    return table, {"pooling_factors": pooling}


def pick(rng: random.Random, n: int, k: int) -> set:
    """k distinct indices of range(n): a partial Fisher-Yates shuffle on random()."""
    idx = list(range(n))
    for i in range(k):
        j = i + min(int(rng.random() * (n - i)), n - i - 1)
        idx[i], idx[j] = idx[j], idx[i]
    return set(idx[:k])


def make_scenario(args: argparse.Namespace) -> dict:
    rng = random.Random(args.seed)
    width = max(3, len(str(args.tables - 1)))
    tables, constraints = [], {}
    for i in range(args.tables):
        table, constraint = make_table(rng, i, width, args)
        tables.append(table)
        constraints[table["name"]] = constraint
    for i in pick(rng, args.tables, round(SHARE_FP16 * args.tables)):
        tables[i]["data_type"] = "fp16"
    for i in pick(rng, args.tables, round(SHARE_WEIGHTED * args.tables)):
        tables[i]["is_weighted"] = True

    name = args.name or (
        f"synthetic_{args.tables}_tables_ws{args.world_size}"
        f"_{args.world_size // args.local_world_size}x{args.local_world_size}"
    )
    return {
        "name": name,
        "topology": {
            "world_size": args.world_size,
            "local_world_size": args.local_world_size,
            "compute_device": "cuda",
            "hbm_cap": args.hbm_cap,
        },
        "batch_size": args.batch_size,
        "module": {
            "kind": "embedding_bag_collection",
            "dense_param_bytes": args.dense_param_bytes,
        },
        "tables": tables,
        "constraints": constraints,
        "sharder": {"optimizer": args.optimizer},
    }


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Example (a benchmark model): "
        "%(prog)s --tables 1000 --world-size 128 --local-world-size 8 -o bench.json; "
        "heavy-tailed sizes: add --rows pareto --max-rows 1e9",
    )
    p.add_argument("--tables", type=int, default=512, help="number of tables (default 512)")
    p.add_argument("--world-size", type=int, default=64, help="number of ranks (default 64)")
    p.add_argument("--local-world-size", type=int, default=None,
                   help="ranks per host (default: 8, or the world size if smaller)")
    p.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    p.add_argument("--name", default="",
                   help="scenario name (default: synthetic_<T>_tables_ws<W>_<hosts>x<L>)")
    p.add_argument("--batch-size", type=int, default=1024,
                   help="per-rank batch size (default 1024)")
    p.add_argument("--hbm-cap", default="80 GiB", help='HBM per GPU (default "80 GiB")')
    p.add_argument("--dense-param-bytes", type=int, default=100_000_000,
                   help="bytes of non-embedding parameters (default 100000000)")
    p.add_argument("--optimizer", default="rowwise_adagrad",
                   choices=["none", "sgd", "adam", "rowwise_adagrad", "adagrad"],
                   help="embedding optimizer (default rowwise_adagrad)")
    p.add_argument("--min-rows", type=float, default=1e3, help="smallest row count (default 1e3)")
    p.add_argument("--max-rows", type=float, default=5e7, help="largest row count (default 5e7)")
    p.add_argument("--rows", choices=["log-uniform", "pareto"], default="log-uniform",
                   help="row-count distribution (default log-uniform; pareto: heavy-tailed)")
    p.add_argument("--pareto-alpha", type=float, default=0.3,
                   help="exponent of --rows pareto; smaller is heavier-tailed (default 0.3)")
    p.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    args = p.parse_args(argv)

    if args.local_world_size is None:
        args.local_world_size = min(8, args.world_size)
    if args.tables < 1:
        p.error("--tables must be >= 1")
    if args.world_size < 1 or args.local_world_size < 1:
        p.error("--world-size and --local-world-size must be >= 1")
    if args.local_world_size > args.world_size:
        p.error("--local-world-size must not exceed --world-size")
    if args.batch_size < 1:
        p.error("--batch-size must be >= 1")
    if args.dense_param_bytes < 0:
        p.error("--dense-param-bytes must be >= 0")
    if not 1 <= args.min_rows <= args.max_rows:
        p.error("need 1 <= --min-rows <= --max-rows")
    if not args.pareto_alpha > 0:
        p.error("--pareto-alpha must be > 0")
    return args


def main(argv) -> int:
    args = parse_args(argv)
    text = json.dumps(make_scenario(args), indent=2) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
