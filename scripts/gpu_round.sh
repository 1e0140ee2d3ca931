#!/usr/bin/env bash
# One GPU call's chosen steps (environment as scripts/gpu_session.sh): bash scripts/gpu_round.sh STEP...
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/src
. .qt/qt-on-gpu.sh || exit 1
export SIMTVIZ_BACKEND=gpu QT_QPA_PLATFORM=offscreen
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for step in "$@"; do
  echo "=== $step $(date +%T)"
  case $step in
    trace_bench) timeout 200 python3 -W ignore benchmarks/trace_gpu.py --out "$OUT/trace_gpu.json" > "$OUT/trace_gpu.txt" 2>&1; tail -40 "$OUT/trace_gpu.txt";;
    first_profile) timeout 150 python3 -W ignore benchmarks/first_run_profile.py > "$OUT/first_profile.txt" 2>&1; head -120 "$OUT/first_profile.txt";;
    start_phases) timeout 200 python3 -W ignore benchmarks/start_phases.py --backend gpu --runs ${SP_RUNS:-5} ${SP_HIDE:+--hide $SP_HIDE} 2>&1 | tee "$OUT/start_phases.txt";;
    start_bare) timeout 200 python3 -W ignore benchmarks/start_phases.py --bare --runs ${SP_RUNS:-2} ${SP_PROFILE:-} ${SP_HIDE:+--hide $SP_HIDE} 2>&1 | tee "$OUT/start_bare.txt";;
    first_run_ab) for v in 0 1; do echo "FIRST_RUN_TABS_LATER=$v"; FIRST_RUN_TABS_LATER=$v timeout 150 python3 -W ignore benchmarks/first_run_gpu.py 5 2>&1; done | tee "$OUT/first_run_ab.txt";;
    first_run) timeout 150 python3 -W ignore benchmarks/first_run_gpu.py 5 2>&1 | tee "$OUT/first_run.txt";;
    analysis) timeout 120 python3 -W ignore benchmarks/trace_analysis.py --xp cupy 2>&1 | tee "$OUT/analysis.txt"; timeout 120 python3 -W ignore benchmarks/trace_analysis.py --xp cupy --accesses 1000000 2>&1 | tee -a "$OUT/analysis.txt";;
    end_probe) timeout 90 python3 -W ignore benchmarks/record_end_probe.py 2>&1 | tee "$OUT/end_probe.txt";;
    record_timing) timeout 120 python3 -W ignore benchmarks/record_timing.py 2>&1 | tee "$OUT/record_timing.txt";;
    test:*) f=${step#test:}; timeout 300 python3 -m pytest -q -o qt_api=pyside6 -m gpu "$f" -p no:cacheprovider -W ignore --tb=short 2>&1 | tail -25 | tee -a "$OUT/tests.txt";;
    alltests) for f in tests/gpu/test_*.py; do echo "== $f" | tee -a "$OUT/tests.txt"; timeout 200 python3 -m pytest -q -o qt_api=pyside6 -m gpu "$f" -p no:cacheprovider -W ignore --tb=short 2>&1 | grep -E "^E |passed|failed|^FAILED|Error" | tail -12 | tee -a "$OUT/tests.txt"; done;;
    sched5) for i in 1 2 3 4 5; do timeout 60 python3 -W ignore -m simtviz schedule --grid 1232 --block 256 --work-us 20 --heavy --json 2>&1 | tail -1 | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print('registers-limited:', d['theoretical']['blocks_per_sm'], d['driver_blocks_per_sm'], d['measured']['max_resident_blocks_per_sm'], d['measured']['waves'])"; done | tee "$OUT/sched5.txt";;
    gpupar) timeout ${GPUPAR_S:-400} python3 -m pytest -q -o qt_api=pyside6 -m gpu tests/gpu -n 6 --dist loadfile -p no:cacheprovider -W ignore --tb=short 2>&1 | tail -40 | tee "$OUT/gpupar.txt";;
    qtpar) timeout ${QTPAR_S:-400} python3 -m pytest -q -o qt_api=pyside6 tests/qt -n 8 -p no:cacheprovider -W ignore --tb=short 2>&1 | tail -30 | tee "$OUT/qtpar.txt";;
    mutation) [ -f mutation-results.tsv ] && cp mutation-results.tsv "$OUT/mutation.tsv"; [ -f mutation-results.lines.json ] && cp mutation-results.lines.json "$OUT/mutation.lines.json"; SIMTVIZ_BACKEND=sim timeout ${MUT_S:-540} python3 scripts/mutation.py --jobs ${MUT_JOBS:-15} --results "$OUT/mutation.tsv" --stop-after $(( ${MUT_S:-540} - 90 )) ${MUT_MODULES:-} > "$OUT/mutation.txt" 2>&1; tail -5 "$OUT/mutation.txt"; grep -c . "$OUT/mutation.tsv";;
    qt) timeout 500 python3 -m pytest -q -o qt_api=pyside6 tests/qt -p no:cacheprovider -W ignore::DeprecationWarning 2>&1 | tail -15 | tee "$OUT/qt-on-gpu.txt";;
  esac
done
