#!/usr/bin/env bash
# The one command: install missing Debian packages, build, run the default suite, write results.
#   ./run.sh                 the default suite (about 2-3 minutes on a 2-core VM)
#   ./run.sh --quick         a small grid in seconds
#   ./run.sh --calibrate     first fit the return-stack model to this CPU (under a minute;
#                            docs/rsb.md), then the suite, whose simulated counts then use it
#   ./run.sh -- ARGS...      extra arguments for `corobench run` (e.g. -- --impl asm,sm)
set -euo pipefail
cd "$(dirname "$0")"

quick=()
calibrate=0
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=(--quick); shift ;;
    --calibrate) calibrate=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (valid: --quick, --calibrate, --help, -- ARGS...)" >&2
       exit 2 ;;
    esac
done

scripts/install-deps.sh
make -j"$(nproc)" all >/dev/null

# Pin the measured children to the last CPU we may use (away from CPU 0's interrupts).
pin=$(( $(nproc) - 1 ))
host=$(hostname)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="results/${host}-${stamp}.json"

if [ "$calibrate" -eq 1 ]; then
    if [ ! -x bin/corobench-rsbsim ]; then
        echo "run.sh: --calibrate needs the variant builds (x86-64 only)" >&2
        exit 2
    fi
    # results/calibration/<cpu key>.json, read by every later run as machine.rsb.
    bin/corobench calibrate --pin "$pin" --data plots/rsb-calibration.dat
    gnuplot -e "data='plots/rsb-calibration.dat'; out='plots/rsb-calibration.png'; subtitle='($(bin/corobench calibrate --print-key))'" \
        plots/rsb-calibration.gp
    echo "run.sh: plot plots/rsb-calibration.png"
fi

status=0
# Both build variants (ret and jmp-return) side by side, each cell with its simulated
# return-stack counts (docs/rsb.md); x86-64 only, where make builds the variant binaries.
variants=()
[ -x bin/corobench-rsbsim ] && variants=(--variant plain,jmpret --rsb sim)
# 200,000 switches per pingpong run keep ucontext's cells (about 1.3 us per switch here) short
# enough for the whole suite to stay within a few minutes; --quick uses its own small grid.
switches=(--param switches=200000)
[ ${#quick[@]} -eq 0 ] || switches=()
bin/corobench run "${quick[@]}" --pin "$pin" --param depth=0,4,16 --param sites=distinct,same \
    "${switches[@]}" "${variants[@]}" -o "$out" "${extra[@]}" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    exit "$status"
fi
ln -sf "$(basename "$out")" results/latest.json
echo "run.sh: results in $out (also results/latest.json)"

# Plots: derived from the JSON through `corobench export`, drawn by gnuplot.
for sites in distinct same; do
    dat="plots/pingpong-depth-${sites}.dat"
    png="plots/pingpong-depth-${sites}.png"
    bin/corobench export "$out" --workload pingpong --x depth --where "sites=$sites" -o "$dat"
    gnuplot -e "data='$dat'; out='$png'; subtitle='(sites=$sites)'" plots/pingpong-depth.gp
    echo "run.sh: plot $png"
done
report="${out%.json}.md"
bin/corobench report "$out" -o "$report"
echo "run.sh: report $report"
[ "$status" -eq 0 ] || echo "run.sh: some cells failed or timed out; see their 'error' fields" >&2
exit "$status"
