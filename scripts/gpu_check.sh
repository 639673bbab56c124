#!/usr/bin/env bash
# The checks that need a GPU, for a session on an H100 (or any CUDA GPU).
# Builds nothing: give it a build dir configured with the CUDA backend, e.g.
#   cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDLAB_WITH_CUDA=ON \
#         -DCMAKE_CUDA_ARCHITECTURES=90 -DSHARDLAB_BUILD_BENCHMARKS=OFF -DSHARDLAB_BUILD_GUI=OFF
#   cmake --build build-cuda --target shardlab kernels_cuda_tests
#
# usage: scripts/gpu_check.sh BUILD_DIR OUT_DIR [STEP...]
#   STEP: tests | bench | torch | replay | all (default: all, in that order)
#   tests   kernels_cuda_tests: CUDA results against the CPU reference, NCCL collectives
#   bench   shardlab bench-kernels --backend cuda over the issue's shapes (fp32 dims 128..1024,
#           pooling 8..32, rows 1M..10M; SGD and row-wise Adagrad; an fp16 sweep), with the copy
#   torch   scripts/bench_torch_embedding_bag.py on bench's shapes (needs PyTorch with CUDA)
#   replay  plan and replay data/scenarios/dlrm_criteo_kaggle.json on the GPUs present, --verify
# Everything is written under OUT_DIR (logs, JSON); a summary is printed last.
# Environment: BAGS (bags per call, default 65536: large enough that launch and tail
# effects stay small next to the bytes moved), ITERATIONS (default 20).
set -u -o pipefail

if [[ $# -lt 2 ]]; then
  sed -n '2,17p' "$0" | cut -c3-
  exit 2
fi
build=$(cd "$1" && pwd)
out=$2
shift 2
steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(all)
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
shardlab="$build/cli/shardlab"
tests="$build/tests/kernels_cuda_tests"
bags=${BAGS:-65536}
iterations=${ITERATIONS:-20}
# Runs are not recorded in the user's run store; a store of their own sits beside the outputs.
export SHARDLAB_DB="$out/runs.db"

want() {
  local s
  for s in "${steps[@]}"; do [[ $s == all || $s == "$1" ]] && return 0; done
  return 1
}

declare -a summary=()
note() { summary+=("$1"); echo "== $1"; }

{
  date -u
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv 2>&1 || true
  nvidia-smi topo -m 2>&1 || true
} >"$out/gpu.txt"

if want tests; then
  if [[ -x $tests ]]; then
    "$tests" --gtest_output="json:$out/kernels_cuda_tests.json" >"$out/kernels_cuda_tests.log" 2>&1
    rc=$?
    note "tests: exit $rc; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test' "$out/kernels_cuda_tests.log" | tr '\n' ' ')"
  else
    note "tests: $tests missing (build the kernels_cuda_tests target)"
  fi
fi

if want bench; then
  common=(--backend cuda --bags "$bags" --iterations "$iterations" --warmup 3)
  "$shardlab" bench-kernels "${common[@]}" --rows 1M,10M --dims 128,256,512,1024 --pooling 8,16,32 \
      -o "$out/bench_fp32_sgd.json" >"$out/bench_fp32_sgd.txt" 2>"$out/bench_fp32_sgd.err"
  note "bench fp32 sgd: exit $?"
  "$shardlab" bench-kernels "${common[@]}" --rows 1M --dims 128,512,1024 --pooling 8,32 \
      --optimizer rowwise_adagrad -o "$out/bench_fp32_adagrad.json" >"$out/bench_fp32_adagrad.txt" \
      2>"$out/bench_fp32_adagrad.err"
  note "bench fp32 adagrad: exit $?"
  "$shardlab" bench-kernels "${common[@]}" --rows 1M --dims 64,128,512,1024 --pooling 8,32 --fp16 \
      -o "$out/bench_fp16_sgd.json" >"$out/bench_fp16_sgd.txt" 2>"$out/bench_fp16_sgd.err"
  note "bench fp16 sgd: exit $?"
fi

if want torch; then
  for name in bench_fp32_sgd bench_fp16_sgd; do
    if [[ -f $out/$name.json ]]; then
      python3 "$here/scripts/bench_torch_embedding_bag.py" --from-json "$out/$name.json" \
          --iterations "$iterations" -o "$out/torch_$name.json" >"$out/torch_$name.txt" 2>&1
      note "torch side by side ($name): exit $?"
    else
      note "torch: $out/$name.json missing (run the bench step first)"
    fi
  done
fi

if want replay; then
  scenario="$here/data/scenarios/dlrm_criteo_kaggle.json"
  "$shardlab" plan "$scenario" -o "$out/dlrm_plan.json" >"$out/dlrm_plan.txt" 2>&1
  note "plan dlrm_criteo_kaggle: exit $?"
  "$shardlab" replay "$scenario" "$out/dlrm_plan.json" --backend cuda --iterations "$iterations" --verify \
      -o "$out/dlrm_replay.json" >"$out/dlrm_replay.txt" 2>"$out/dlrm_replay.err"
  note "replay dlrm_criteo_kaggle (verify): exit $?"
fi

echo
echo "==== summary ($out)"
printf '%s\n' "${summary[@]}"
for f in bench_fp32_sgd bench_fp32_adagrad bench_fp16_sgd; do
  [[ -f $out/$f.txt ]] && { echo "---- $f"; cat "$out/$f.txt"; }
done
for f in torch_bench_fp32_sgd torch_bench_fp16_sgd; do
  [[ -f $out/$f.txt ]] && { echo "---- $f"; tail -n 25 "$out/$f.txt"; }
done
[[ -f $out/dlrm_replay.txt ]] && { echo "---- dlrm replay"; tail -n 40 "$out/dlrm_replay.txt"; tail -n 5 "$out/dlrm_replay.err"; }
exit 0
