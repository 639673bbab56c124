#!/usr/bin/env python3
"""Generate synthetic DLRM-like scenarios with heavy-tailed tables, as production
models have them: a few huge, hot tables and many small, cold ones.

One model:

    scripts/gen_heavy_tailed_scenario.py --tables 300 --world-size 16 -o m.json

The benchmark set of `shardlab optimize` (docs/optimize.md), 16 models with fixed
seeds, into a directory:

    scripts/gen_heavy_tailed_scenario.py --suite bench/optimize

The output is a deterministic function of the arguments (only random.Random.random()
is drawn, which is stable across Python 3 versions).

Table mix (per table, independently):
  rows            Pareto with shape --rows-alpha on [--min-rows, --max-rows]: most
                  tables have a few thousand rows, a few have tens of millions
  pooling factor  Pareto with shape --pooling-alpha on [1, --max-pooling], one
                  decimal; a table's hotness grows with its size (the rank
                  correlation is about 0.5): big tables are looked up more
  embedding_dim   32, 64, 128 or 256; larger tables draw wider dims more often
  features        1 (85%), else 2 or 3 (shared tables), one pooling factor each
  is_weighted     10% of tables; data_type fp16 for 25%, else fp32
Cluster and workload:
  hbm_cap         --hbm-cap, or with --tight-hbm F the HBM per GPU that makes the
                  tables' fp32 bytes (with optimizer state) F times the cluster's
                  HBM: F near 1 forces caching kernels for the largest tables
  workload        --dense-ms gives the dense forward time per rank; backward is
                  twice that (workload.dense_fwd_ms / dense_bwd_ms)
Everything else (bandwidths, fabric, proposers, partitioner, reservation) is
left to the scenario format's defaults, so TorchRec's planner runs as it would.
"""

import argparse
import json
import os
import random
import sys

from gen_synthetic_scenario import bounded_pareto, pick

DIMS = (32, 64, 128, 256)
P_MULTI_FEATURE = 0.15
SHARE_WEIGHTED = 0.10
SHARE_FP16 = 0.25

# The benchmark set: (name, tables, world_size, local_world_size, batch_size,
# tight_hbm (0: 80 GiB per GPU), dense_fwd_ms, optimizer, seed).
SUITE = [
    ("ht060_w8_1x8", 60, 8, 8, 2048, 0.0, 0.0, "rowwise_adagrad", 101),
    ("ht080_w8_2x4", 80, 8, 4, 4096, 0.0, 2.0, "adam", 102),
    ("ht120_w16_2x8", 120, 16, 8, 2048, 0.0, 0.0, "rowwise_adagrad", 103),
    ("ht150_w16_2x8_tight", 150, 16, 8, 1024, 0.8, 0.0, "rowwise_adagrad", 104),
    ("ht200_w16_4x4_dense", 200, 16, 4, 2048, 0.0, 6.0, "sgd", 105),
    ("ht250_w24_3x8", 250, 24, 8, 1024, 0.0, 0.0, "adam", 106),
    ("ht300_w16_2x8", 300, 16, 8, 1024, 0.0, 0.0, "rowwise_adagrad", 107),
    ("ht300_w32_4x8_dense", 300, 32, 8, 2048, 0.0, 10.0, "rowwise_adagrad", 108),
    ("ht400_w32_4x8_tight", 400, 32, 8, 1024, 0.85, 0.0, "rowwise_adagrad", 109),
    ("ht400_w8_1x8_tight", 400, 8, 8, 2048, 0.9, 4.0, "sgd", 110),
    ("ht500_w48_6x8", 500, 48, 8, 512, 0.0, 0.0, "rowwise_adagrad", 111),
    ("ht500_w32_8x4_dense", 500, 32, 4, 1024, 0.0, 8.0, "adam", 112),
    ("ht600_w64_8x8", 600, 64, 8, 512, 0.0, 0.0, "rowwise_adagrad", 113),
    ("ht650_w64_8x8_tight", 650, 64, 8, 1024, 0.8, 0.0, "rowwise_adagrad", 114),
    ("ht700_w40_5x8_dense", 700, 40, 8, 1024, 0.0, 12.0, "rowwise_adagrad", 115),
    ("ht800_w64_8x8_dense", 800, 64, 8, 512, 0.0, 5.0, "rowwise_adagrad", 116),
]


def bytes_per_row(dim: int, data_type: str, optimizer: str) -> float:
    """fp32/fp16 weights plus optimizer state, for sizing the tight-HBM cap."""
    elem = 2 if data_type == "fp16" else 4
    state = {"adam": 2 * dim * 4, "adagrad": dim * 4, "rowwise_adagrad": 4}.get(optimizer, 0)
    return dim * elem + state


def make_tables(rng: random.Random, args: argparse.Namespace):
    width = max(3, len(str(args.tables - 1)))
    tables, constraints = [], {}
    for i in range(args.tables):
        # A fixed number of draws per table, whatever the branches take.
        u_rows, u_dim, u_hot, u_mix, u_multi, u_nfeat = (rng.random() for _ in range(6))
        u_pool = [rng.random() for _ in range(3)]
        rows = int(round(bounded_pareto(u_rows, args.min_rows, args.max_rows, args.rows_alpha)))
        # Size rank in [0, 1): 0 for the smallest tables, near 1 for the largest.
        size_q = 1.0 - (rows / args.min_rows) ** (-args.rows_alpha)
        # Wider dims for bigger tables: shift the dim draw by the size rank.
        d = min(int((0.6 * u_dim + 0.4 * size_q) * len(DIMS)), len(DIMS) - 1)
        num_features = 1 if u_multi >= P_MULTI_FEATURE else (2 if u_nfeat < 0.5 else 3)
        # Hotness: mix the table's size rank into the pooling draw.
        pooling = []
        for u in u_pool[:num_features]:
            q = min(0.999, 0.5 * u + 0.5 * (size_q if u_mix < 0.7 else u_hot))
            pooling.append(round(bounded_pareto(q, 1.0, args.max_pooling, args.pooling_alpha), 1))
        name = f"t{i:0{width}d}"
        tables.append({
            "name": name,
            "num_embeddings": max(rows, 1),
            "embedding_dim": DIMS[d],
            "feature_names": [f"{name}_f{k}" for k in range(num_features)],
            "data_type": "fp32",
        })
        constraints[name] = {"pooling_factors": pooling}
    for i in pick(rng, args.tables, round(SHARE_FP16 * args.tables)):
        tables[i]["data_type"] = "fp16"
    for i in pick(rng, args.tables, round(SHARE_WEIGHTED * args.tables)):
        tables[i]["is_weighted"] = True
    return tables, constraints


def make_scenario(args: argparse.Namespace) -> dict:
    rng = random.Random(args.seed)
    tables, constraints = make_tables(rng, args)
    if args.tight_hbm > 0:
        need = sum(t["num_embeddings"] * bytes_per_row(t["embedding_dim"], t["data_type"], args.optimizer)
                   for t in tables)
        hbm_cap = int(need / args.tight_hbm / args.world_size)
    else:
        hbm_cap = args.hbm_cap
    hosts = args.world_size // args.local_world_size
    scenario = {
        "name": args.name or f"heavy_tailed_{args.tables}_tables_ws{args.world_size}_{hosts}x{args.local_world_size}",
        "topology": {
            "world_size": args.world_size,
            "local_world_size": args.local_world_size,
            "compute_device": "cuda",
            "hbm_cap": hbm_cap,
        },
        "batch_size": args.batch_size,
        "module": {"kind": "embedding_bag_collection", "dense_param_bytes": args.dense_param_bytes},
        "tables": tables,
        "constraints": constraints,
        "sharder": {"optimizer": args.optimizer},
    }
    if args.dense_ms > 0:
        scenario["workload"] = {"dense_fwd_ms": args.dense_ms, "dense_bwd_ms": 2 * args.dense_ms}
    return scenario


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", metavar="DIR",
                   help="write the 16-model benchmark set into DIR (other model options are ignored)")
    p.add_argument("--tables", type=int, default=300, help="number of tables (default 300)")
    p.add_argument("--world-size", type=int, default=16, help="number of ranks (default 16)")
    p.add_argument("--local-world-size", type=int, default=None,
                   help="ranks per host (default: 8, or the world size if smaller)")
    p.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    p.add_argument("--name", default="", help="scenario name (default: heavy_tailed_<T>_tables_ws<W>_<H>x<L>)")
    p.add_argument("--batch-size", type=int, default=1024, help="per-rank batch size (default 1024)")
    p.add_argument("--hbm-cap", default="80 GiB", help='HBM per GPU (default "80 GiB")')
    p.add_argument("--tight-hbm", type=float, default=0.0,
                   help="size HBM so the tables fill this share of it, e.g. 0.85 (default 0: use --hbm-cap)")
    p.add_argument("--dense-ms", type=float, default=0.0,
                   help="dense forward ms per rank, backward twice that (default 0: no workload section)")
    p.add_argument("--dense-param-bytes", type=int, default=100_000_000,
                   help="bytes of non-embedding parameters (default 100000000)")
    p.add_argument("--optimizer", default="rowwise_adagrad",
                   choices=["none", "sgd", "adam", "rowwise_adagrad", "adagrad"],
                   help="embedding optimizer (default rowwise_adagrad)")
    p.add_argument("--min-rows", type=float, default=1e3, help="smallest row count (default 1e3)")
    p.add_argument("--max-rows", type=float, default=1e8, help="largest row count (default 1e8)")
    p.add_argument("--rows-alpha", type=float, default=0.35,
                   help="Pareto shape of the row counts; smaller is heavier-tailed (default 0.35)")
    p.add_argument("--max-pooling", type=float, default=200.0, help="largest pooling factor (default 200)")
    p.add_argument("--pooling-alpha", type=float, default=0.9,
                   help="Pareto shape of the pooling factors (default 0.9)")
    p.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    args = p.parse_args(argv)
    if args.local_world_size is None:
        args.local_world_size = min(8, args.world_size)
    if args.tables < 1 or args.world_size < 1 or args.local_world_size < 1:
        p.error("--tables, --world-size and --local-world-size must be >= 1")
    if args.world_size % args.local_world_size:
        p.error("--world-size must be a multiple of --local-world-size")
    if not 1 <= args.min_rows <= args.max_rows:
        p.error("need 1 <= --min-rows <= --max-rows")
    return p, args


def write(path: str, scenario: dict) -> None:
    text = json.dumps(scenario, indent=1) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv) -> int:
    parser, args = parse_args(argv)
    if args.suite:
        os.makedirs(args.suite, exist_ok=True)
        for name, tables, world, local, batch, tight, dense, optimizer, seed in SUITE:
            model = parser.parse_args([
                "--tables", str(tables), "--world-size", str(world), "--local-world-size", str(local),
                "--batch-size", str(batch), "--tight-hbm", str(tight), "--dense-ms", str(dense),
                "--optimizer", optimizer, "--seed", str(seed), "--name", name])
            write(os.path.join(args.suite, name + ".json"), make_scenario(model))
        print(f"wrote {len(SUITE)} scenarios to {args.suite}", file=sys.stderr)
        return 0
    write(args.output, make_scenario(args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
