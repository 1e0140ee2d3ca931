#!/usr/bin/env bash
# One GPU session's checks on the lent GPU machine (shared/device/README.md): the GPU suite, the
# benchmarks whose numbers docs/BENCHMARKS.md quotes, and the screenshots made from GPU data.
# Usage there: bash scripts/gpu_session.sh [tests|bench|qt|all]; results go to $OUT.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/src
. .qt/qt-on-gpu.sh || exit 1
export SIMTVIZ_BACKEND=gpu QT_QPA_PLATFORM=offscreen
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
what=${1:-all}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
if [ "$what" = tests ] || [ "$what" = all ]; then
  # One process per file: a GPU test file measures timings and residency, which another file's
  # contexts and threads in the same process would disturb.
  for f in tests/gpu/test_*.py; do
    echo "== $f" >> "$OUT/gpu-tests.txt"
    timeout 200 python3 -m pytest -q -o qt_api=pyside6 -m gpu "$f" -p no:cacheprovider -W ignore --tb=short 2>&1 \
      | grep -E "^E |passed|failed|^FAILED|Error" | tail -12 >> "$OUT/gpu-tests.txt"
  done
  cat "$OUT/gpu-tests.txt"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  timeout 90 python3 -W ignore benchmarks/record_timing.py > "$OUT/record_timing.txt" 2>&1
  timeout 90 python3 -W ignore benchmarks/vecadd.py --out "$OUT/vecadd.json" > "$OUT/vecadd.txt" 2>&1
  timeout 120 python3 -W ignore benchmarks/first_run_gpu.py 3 > "$OUT/first_run.txt" 2>&1
  timeout 150 python3 -W ignore benchmarks/trace_gpu.py --out "$OUT/trace_gpu.json" > "$OUT/trace_gpu.txt" 2>&1
  timeout 90 python3 -W ignore scripts/trace_templates_gpu.py > "$OUT/trace_templates.txt" 2>&1
  mkdir -p "$OUT/schedule" "$OUT/docs"
  for spec in "2464 256 threads" "1232 256 registers --heavy" "1540 128 shared-memory --smem 40960" "9856 32 blocks"; do
    set -- $spec
    timeout 60 python3 -W ignore -m simtviz schedule --grid "$1" --block "$2" --work-us 20 --json --out "$OUT/schedule/schedule-$3.npz" "${@:4}" >> "$OUT/schedule.jsonl" 2>&1
  done
  timeout 30 python3 -W ignore -m simtviz occupancy --block 256 --json >> "$OUT/occupancy.txt" 2>&1
  timeout 120 python3 -W ignore scripts/schedule_screenshots.py "$OUT"/schedule/*.npz --out "$OUT/docs" > "$OUT/schedule_shots.txt" 2>&1
  timeout 120 python3 -W ignore scripts/lesson_screenshots.py --record "$OUT/lesson_gpu.json" --out "$OUT/docs" > "$OUT/lesson_shots.txt" 2>&1
  tail -n 5 "$OUT"/*.txt
fi
if [ "$what" = qt ] || [ "$what" = all ]; then
  timeout 500 python3 -m pytest -q -o qt_api=pyside6 tests/qt -p no:cacheprovider -x -W ignore::DeprecationWarning 2>&1 | tail -15 | tee "$OUT/qt-on-gpu.txt"
fi
