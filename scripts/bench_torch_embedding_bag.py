#!/usr/bin/env python3
"""torch.nn.functional.embedding_bag on the shapes of `shardlab bench-kernels`, side by side.

For each (rows, dim, pooling) it times, on the same GPU and with CUDA events:
  forward   F.embedding_bag(ids, weight, offsets, mode="sum")
  backward  out.backward(grad) with sparse=True, then weight.add_(sparse grad, alpha=-lr)
            (plain SGD; PyTorch does not fuse the update into the backward)
and a device-to-device copy of 1 GiB (read + write bytes, as bytes.h counts).
Inputs follow bench-kernels: BAGS bags whose lengths are floor((b+1)·L) - floor(b·L),
ids uniform over the rows, fresh ids for every timed call (drawn before it,
untimed), table values in [-1/16, 1/16). Bytes use ShardLab's count (bytes.h),
so GB/s of both sides compare; note that for fp16 tables torch writes an fp16
output where ShardLab writes fp32 (bytes.h counts 4 bytes per output element).

Shapes come from a bench-kernels JSON (--from-json, ShardLab's times are then
printed beside torch's) or from the same flags bench-kernels takes:

  shardlab bench-kernels --backend cuda --rows 1M,10M --dims 128,512 --pooling 8,32 -o bench.json
  scripts/bench_torch_embedding_bag.py --from-json bench.json -o torch.json
  scripts/bench_torch_embedding_bag.py --rows 1M --dims 128 --pooling 8 --bags 8192

Exit status: 0 ok, 2 bad arguments or torch / CUDA missing.
"""
import argparse
import json
import math
import statistics
import sys


def parse_count(text):
    scale = {"k": 10**3, "m": 10**6, "g": 10**9}.get(text[-1:].lower(), 1)
    digits = text[:-1] if scale != 1 else text
    return int(digits) * scale


def forward_bytes(ids, bags, dim, elem):
    # bytes.h: ids·8 + (bags+1)·8 + ids·dim·elem + bags·dim·4 (unweighted, sum pooling)
    return ids * 8 + (bags + 1) * 8 + ids * dim * elem + bags * dim * 4


def backward_bytes(ids, bags, dim, elem, unique):
    # bytes.h: bags·dim·4 (gradient) + ids·8 + unique·dim·elem·2 (SGD: no optimizer state)
    return bags * dim * 4 + ids * 8 + unique * dim * elem * 2


def bag_offsets(torch, bags, pooling, device):
    b = torch.arange(bags + 1, dtype=torch.float64)
    ends = torch.floor(b * pooling).to(torch.int64)  # offsets[b] = floor(b·L): lengths as bench-kernels draws
    return ends.to(device)


def time_ms(torch, fn, warmup, iterations, before=None):
    samples = []
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    for i in range(warmup + iterations):
        if before is not None:
            before(i)
        torch.cuda.synchronize()
        start.record()
        fn(i)
        stop.record()
        torch.cuda.synchronize()
        if i >= warmup:
            samples.append(start.elapsed_time(stop))
    return samples


def summary(samples):
    s = sorted(samples)
    n = len(s)
    rank = lambda q: max(1, math.ceil(q * n)) - 1  # nearest rank, as kernels::summarize
    return {"median_ms": s[rank(0.5)], "p90_ms": s[rank(0.9)], "min_ms": s[0], "samples": n}


def copy_bandwidth(torch, warmup, iterations):
    free, _ = torch.cuda.mem_get_info()
    nbytes = min(1 << 30, free // 4) & ~255
    src = torch.ones(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    t = summary(time_ms(torch, lambda i: dst.copy_(src), warmup, max(iterations, 10)))
    del src, dst
    return 2.0 * nbytes / (t["median_ms"] * 1e-3)


def bench_shape(torch, F, rows, dim, pooling, bags, fp16, warmup, iterations, lr=0.01):
    dtype = torch.float16 if fp16 else torch.float32
    elem = 2 if fp16 else 4
    weight = torch.empty(rows, dim, dtype=dtype, device="cuda").uniform_(-1.0 / 16, 1.0 / 16)
    offsets_full = bag_offsets(torch, bags, pooling, "cuda")
    n_ids = int(offsets_full[-1].item())
    offsets = offsets_full[:-1].contiguous()  # torch takes bag starts (include_last_offset=False)
    calls = warmup + iterations
    ids = [torch.randint(0, rows, (n_ids,), dtype=torch.int64, device="cuda") for _ in range(calls)]
    grad = torch.empty(bags, dim, dtype=dtype, device="cuda").uniform_(-1.0 / 64, 1.0 / 64)

    fwd = time_ms(torch, lambda i: F.embedding_bag(ids[i], weight, offsets, mode="sum"), warmup, iterations)

    param = torch.nn.Parameter(weight)
    outs = {}

    def before_backward(i):
        param.grad = None
        outs[i] = F.embedding_bag(ids[i], param, offsets, mode="sum", sparse=True)

    def backward(i):
        outs.pop(i).backward(grad)
        with torch.no_grad():
            param.add_(param.grad, alpha=-lr)

    bwd = time_ms(torch, backward, warmup, iterations, before=before_backward)
    unique = statistics.mean(int(torch.unique(ids[i]).numel()) for i in range(warmup, calls))
    f, b = summary(fwd), summary(bwd)
    fb = forward_bytes(n_ids, bags, dim, elem)
    bb = backward_bytes(n_ids, bags, dim, elem, unique)
    return {
        "rows": rows, "dim": dim, "pooling_factor": pooling, "bags": bags,
        "precision": "fp16" if fp16 else "fp32",
        "forward": f, "backward": b,
        "forward_bytes": fb, "backward_bytes": bb,
        "forward_bytes_per_s": fb / (f["median_ms"] * 1e-3),
        "backward_bytes_per_s": bb / (b["median_ms"] * 1e-3),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from-json", help="bench-kernels JSON: its shapes, and its times printed beside torch's")
    ap.add_argument("--rows", default="1M", help="comma-separated counts, k/M/G = 10^3/10^6/10^9 (default 1M)")
    ap.add_argument("--dims", default="32,64,128,256,512", help="comma-separated (default 32,64,128,256,512)")
    ap.add_argument("--pooling", default="1,8,32", help="comma-separated ids per bag (default 1,8,32)")
    ap.add_argument("--bags", type=int, default=8192, help="bags per call (default 8192)")
    ap.add_argument("--fp16", action="store_true", help="fp16 tables (default fp32)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("-o", "--output", help="write the torch results as JSON here")
    args = ap.parse_args()

    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("bench_torch_embedding_bag: PyTorch is not installed (pip install torch)", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("bench_torch_embedding_bag: no CUDA device visible to PyTorch", file=sys.stderr)
        return 2

    shardlab = {}
    if args.from_json:
        with open(args.from_json) as f:
            report = json.load(f)
        shapes = [(r["rows"], r["dim"], r["pooling_factor"], r["bags"], r["precision"] == "fp16")
                  for r in report["rows"]]
        for r in report["rows"]:
            shardlab[(r["rows"], r["dim"], r["pooling_factor"], r["bags"], r["precision"] == "fp16")] = r
        print(f"ShardLab ({report.get('backend')}, {report.get('device')}): copy "
              f"{report.get('copy_bytes_per_s', 0) / 1e9:.1f} GB/s")
    else:
        try:
            shapes = [(parse_count(r), int(d), float(p), args.bags, args.fp16)
                      for r in args.rows.split(",") for d in args.dims.split(",") for p in args.pooling.split(",")]
        except ValueError as e:
            print(f"bench_torch_embedding_bag: {e}", file=sys.stderr)
            return 2

    copy = copy_bandwidth(torch, args.warmup, args.iterations)
    device = torch.cuda.get_device_name()
    print(f"torch {torch.__version__} on {device}: copy {copy / 1e9:.1f} GB/s (read + write bytes)")
    header = (f"{'rows':>10} {'dim':>5} {'pool':>5} {'bags':>6} {'prec':>4} | {'torch fwd ms':>12} {'GB/s':>7} "
              f"{'%copy':>6} | {'shardlab fwd ms':>15} {'speed-up':>8} | {'torch bwd ms':>12} {'shardlab bwd ms':>15}")
    print(header)
    results = []
    for rows, dim, pooling, bags, fp16 in shapes:
        r = bench_shape(torch, F, rows, dim, pooling, bags, fp16, args.warmup, args.iterations)
        results.append(r)
        mine = shardlab.get((rows, dim, pooling, bags, fp16))
        s_fwd = f"{mine['forward']['median_ms']:15.4f}" if mine else f"{'-':>15}"
        s_bwd = f"{mine['backward']['median_ms']:15.4f}" if mine else f"{'-':>15}"
        speedup = f"{r['forward']['median_ms'] / mine['forward']['median_ms']:8.2f}" if mine else f"{'-':>8}"
        print(f"{rows:>10} {dim:>5} {pooling:>5g} {bags:>6} {'fp16' if fp16 else 'fp32':>4} | "
              f"{r['forward']['median_ms']:12.4f} {r['forward_bytes_per_s'] / 1e9:7.1f} "
              f"{100 * r['forward_bytes_per_s'] / copy:6.1f} | {s_fwd} {speedup} | "
              f"{r['backward']['median_ms']:12.4f} {s_bwd}")
        torch.cuda.empty_cache()
    print("speed-up: torch forward time / ShardLab forward time (> 1: ShardLab faster)")
    if args.output:
        with open(args.output, "w") as f:
            json.dump({"backend": "torch", "torch_version": torch.__version__, "device": device,
                       "copy_bytes_per_s": copy, "rows": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
