#!/usr/bin/env bash
# One GPU session in one go (about 10 minutes on one H200): the tests marked `cuda`
# (tests/cuda, and the NCCL ones of tests/distributed), then benchmarks/gpu.py. The
# project must be importable by $PYTHON (default python3): installed, or its wheels
# unpacked on PYTHONPATH. Results go to $OUT (default ./gpu-session): the tests' JUnit
# XML and log, the benchmark's JSON and log. Exit: the first failure's code, else 0.
#
#     OUT=/tmp/gpu-results bash benchmarks/gpu_session.sh
set -u -o pipefail      # a pipe into tee must not hide a crash's exit code

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-$PWD/gpu-session}"
TESTS_S="${GPU_TESTS_S:-330}"       # each part stops at its budget, keeping what it has
BENCH_S="${GPU_BENCH_S:-240}"
mkdir -p "$OUT"
cd "$ROOT"

"$PYTHON" - <<'PY' 2>&1 | tee "$OUT/machine.txt"
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())
for i in range(torch.cuda.device_count()):
    print(f"cuda:{i}", torch.cuda.get_device_name(i))
PY
status=$?
[ "$status" -eq 0 ] || exit "$status"

timeout --signal=INT --kill-after=20 "$TESTS_S" "$PYTHON" -X faulthandler -m pytest \
    tests/cuda tests/distributed/test_nccl.py -m cuda -p no:cacheprovider -rs -v \
    --junitxml="$OUT/cuda-tests.xml" 2>&1 | tee "$OUT/cuda-tests.log"
tests=$?

timeout --signal=INT --kill-after=20 "$((BENCH_S + 60))" "$PYTHON" -X faulthandler \
    benchmarks/gpu.py --budget "$BENCH_S" --json "$OUT/gpu.json" 2>&1 | tee "$OUT/gpu.log"
bench=$?

echo "cuda tests exit $tests, benchmarks/gpu.py exit $bench" | tee "$OUT/summary.txt"
[ "$tests" -ne 0 ] && exit "$tests"
exit "$bench"
