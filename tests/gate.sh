#!/usr/bin/env bash
# The deterministic CI gate (docs/ci.md): a fixed quick grid whose deterministic fields (checksum,
# suspensions, ops, simulated return-stack counts with a pinned model, heap and touched bytes per
# coroutine) are kept in results/baselines/gate-<arch>.json, beside the named baselines of
# `run --save-baseline` (`compare --baseline gate-<arch>` reads it as one).
#   tests/gate.sh check      rerun the grid, compare exactly; prints "1 passed, 0 failed" or the
#                            cells and fields that changed and "0 passed, 1 failed"
#   tests/gate.sh baseline   rerun the grid and rewrite the baseline (make baseline), on purpose
# CB_GATE_BASELINE=FILE uses another baseline file (the gate's own test does).
# Timing is not compared: on shared CI machines it is advisory (docs/ci.md says why).
set -u
cd "$(dirname "$0")/.."
mode=${1:-check}
arch=$(uname -m)
baseline=${CB_GATE_BASELINE:-results/baselines/gate-${arch}.json}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The grid. Every implementation and parameter is named, so implementations added later do not
# change it; the simulated model is pinned (circular, 32 entries) where the simulator is built.
grid=(--impl asm,asmjmp,ucontext,sm,closure --workload pingpong,recursive,spawn,io
      --param depth=0,5,33 --param sites=distinct,same --param mode=symmetric
      --param switches=500 --param height=6,12
      --param n=200 --param frame=64 --param conns=2 --param msgs=20 --param size=64
      --param transport=unix --param style=explicit --param layout=aligned --param order=fifo
      --param seed=1 --param locals=live --param deep_once=0 --param deep_share=100
      --param alloc=malloc --reps 1 --warmup 0 --min-rep-ms 0.1 --invocations 1
      --no-table)
[ -x bin/corobench-rsbsim ] &&
    grid+=(--variant plain,jmpret --rsb sim --rsb-model circular --rsb-entries 32)

case "$mode" in
check | baseline) ;;
*) echo "gate.sh: unknown mode '$mode' (valid: check, baseline)" >&2; exit 2 ;;
esac

if ! bin/corobench run "${grid[@]}" -o "$tmp/run.json" > "$tmp/run.log" 2>&1; then
    cat "$tmp/run.log"
    echo "FAIL gate: the grid did not run cleanly (above)"
    [ "$mode" = check ] && echo "0 passed, 1 failed"
    exit 1
fi
bin/corobench export "$tmp/run.json" --format deterministic -o "$tmp/det.json" || exit 1

if [ "$mode" = baseline ]; then
    mkdir -p results/baselines
    mv "$tmp/det.json" "$baseline"
    echo "gate.sh: wrote $baseline ($(grep -c '"checksum"' "$baseline") cells)"
    exit 0
fi
if [ ! -f "$baseline" ]; then
    echo "SKIP gate: no $baseline for this architecture (make baseline writes one)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
if bin/corobench compare "$baseline" "$tmp/det.json" --metric deterministic > "$tmp/cmp.log" 2>&1; then
    echo "PASS gate: $(grep -c '"checksum"' "$baseline") cells, deterministic fields as in $baseline"
    echo "1 passed, 0 failed"
else
    # Each problem with its continuation lines (compare wraps a long one at 100 columns, indented).
    awk '/^(ERROR|CHANGED|corobench:)/ { p = 1; print; next } p && /^[ \t]/ { print; next } { p = 0 }' \
        "$tmp/cmp.log" | grep . || cat "$tmp/cmp.log"
    echo "FAIL gate: deterministic fields differ from $baseline (make baseline if on purpose)"
    echo "0 passed, 1 failed"
fi
