#!/usr/bin/env bash
# The A/A test of `corobench compare` (docs/ci.md): how often it calls an unchanged build slower,
# and whether it catches a known slowdown.
#   tests/aa.sh            make aa: PAIRS (10) pairs of back-to-back `run --quick` of this build,
#                          each pair compared; each pair's first run is also compared with a
#                          run whose cell SLOW_CELL is slowed 1.25x and with one where every cell
#                          is slowed 1.10x (COROBENCH_TEST_SLOWDOWN, harness/measure/cell.c).
#                          Prints the figures; exit 1 when one misses the issue's bar (no
#                          timing change called in >= 9 of 10 A/A pairs, no pair with more than one cell
#                          regressed, the slowed cell caught in every pair, the uniform slowdown
#                          found by the whole-run test in every pair).
#   tests/aa.sh --short    make check's stage: 2 A/A pairs of a 9-cell grid; fails when a pair
#                          has more than one cell regressed or both pairs call a timing change
#                          (the false-positive bound); prints "1 passed, 0 failed" or why not.
# A false positive is a timing verdict (a cell or the whole run REGRESSED or improved); a cell
# that failed in a run (compare's ERROR) is counted apart, as not a timing verdict.
# ARGS (env) adds run arguments (--pin 1); AA_KEEP=DIR keeps the results files there; GRID=short
# runs the full protocol on --short's 9-cell grid instead of --quick's (minutes, not an hour, on
# a loaded 2-core machine); PAIRS=N sets the number of pairs.
set -u
cd "$(dirname "$0")/.."
mode=${1:-full}
case "$mode" in
full | --short) ;;
*) echo "aa.sh: unknown argument '$mode' (valid: --short, or none)" >&2; exit 2 ;;
esac
tmp=${AA_KEEP:-$(mktemp -d)}
mkdir -p "$tmp"
[ -n "${AA_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
read -r -a extra <<< "${ARGS:-}"

short_grid=(--impl asm,sm,closure --workload pingpong,recursive,spawn --param switches=20000
            --param height=10 --param n=1000 --reps 3 --min-rep-ms 2 --no-table)
if [ "$mode" = --short ]; then
    pairs=2
    grid=("${short_grid[@]}")
else
    pairs=${PAIRS:-10}
    case "${GRID:-quick}" in
    quick) grid=(--quick --no-table) ;;
    short) grid=("${short_grid[@]}") ;; # the full protocol on --short's 9 cells
    *) echo "aa.sh: unknown GRID '$GRID' (valid: quick, short)" >&2; exit 2 ;;
    esac
fi
slow_cell=${SLOW_CELL:-sm/recursive}

run() { # run OUT [ENV...]: one run of the grid; a cell that failed is said (compare then
    # reports it as an error, which is not a timing verdict: counted apart)
    local out=$1 rc=0
    shift
    env "$@" bin/corobench run "${grid[@]}" "${extra[@]}" -o "$out" > "$out.log" 2>&1 || rc=$?
    if [ "$rc" -eq 1 ]; then
        echo "    note: $(basename "$out"): $(tail -1 "$out.log")"
    elif [ "$rc" -ne 0 ]; then
        echo "aa.sh: run $out: exit $rc:" >&2
        tail -3 "$out.log" >&2
        exit 1
    fi
}

# compare's md form: one table row per cell (`| **REGRESSED** | ... | `cell` |`), the summary
# as a list (`- whole run: ...: REGRESSED`); no line is wrapped, unlike the text form.
compare() { bin/corobench compare "$1" "$2" --format md > "$3"; }
row_re='^\| (\*\*REGRESSED\*\*|improved) \|'

fp_pairs=0 worst=0 caught=0 uniform=0 other=0 t0=$(date +%s)
for p in $(seq 1 "$pairs"); do
    run "$tmp/a$p.json"
    run "$tmp/b$p.json"
    compare "$tmp/a$p.json" "$tmp/b$p.json" "$tmp/aa$p.md"
    rc=$?
    regressed=$(grep -c '^| \*\*REGRESSED\*\* |' "$tmp/aa$p.md")
    # a timing false positive: a cell or the whole run called slower (or faster); a cell that
    # failed in a run is an error of another kind, counted apart
    if grep -Eq "$row_re" "$tmp/aa$p.md" ||
        grep -Eq '^- whole run: .*: (REGRESSED|improved)$' "$tmp/aa$p.md"; then
        fp_pairs=$((fp_pairs + 1))
    elif [ "$rc" -ne 0 ]; then
        other=$((other + 1))
    fi
    [ "$regressed" -le "$worst" ] || worst=$regressed
    echo "pair $p: compare exit $rc, $regressed cells regressed; $(grep '^- whole run' "$tmp/aa$p.md")"
    [ "$rc" -eq 0 ] || grep -E "$row_re|^- \*\*(ERROR|CHANGED)\*\*" "$tmp/aa$p.md" |
        sed 's/^/    /'
    [ "$mode" = full ] || continue
    run "$tmp/s$p.json" COROBENCH_TEST_SLOWDOWN="1.25@$slow_cell"
    compare "$tmp/a$p.json" "$tmp/s$p.json" "$tmp/slow$p.md"
    impl=${slow_cell%/*} wl=${slow_cell#*/}
    cell_re="\| \`$wl [^\`]* $impl/plain\` \|$"
    if grep -E "^\| \*\*REGRESSED\*\* \|.*$cell_re" "$tmp/slow$p.md" > /dev/null; then
        caught=$((caught + 1)) verdict=caught
    else
        verdict=missed
    fi
    echo "    1.25x on $slow_cell: $verdict: $(grep -E "$cell_re" "$tmp/slow$p.md" | tr -s ' ')"
    run "$tmp/u$p.json" COROBENCH_TEST_SLOWDOWN=1.10
    compare "$tmp/a$p.json" "$tmp/u$p.json" "$tmp/uni$p.md"
    if grep -q '^- whole run: .*: REGRESSED$' "$tmp/uni$p.md"; then
        uniform=$((uniform + 1)) verdict=found
    else
        verdict=missed
    fi
    echo "    1.10x on every cell: $verdict; $(grep '^- whole run' "$tmp/uni$p.md")"
done
secs=$(($(date +%s) - t0))
load=$(cut -d' ' -f1-3 /proc/loadavg)

if [ "$mode" = --short ]; then
    echo "aa (short): $pairs A/A pairs, a timing verdict other than unchanged in $fp_pairs" \
         "(other errors in $other), at most $worst cells regressed in a pair; $secs s, load" \
         "average $load"
    if [ "$worst" -gt 1 ] || [ "$fp_pairs" -ge "$pairs" ]; then
        echo "FAIL aa: false positives above the bound (a pair with more than one cell regressed," \
             "or every pair failing)"
        echo "0 passed, 1 failed"
    else
        echo "PASS aa"
        echo "1 passed, 0 failed"
    fi
    exit 0
fi

echo "A/A: no timing change called in $((pairs - fp_pairs)) of $pairs pairs (false positives:" \
     "$fp_pairs; pairs with a cell failed, not timing: $other); at most $worst cells regressed" \
     "in one pair"
echo "A/B: 1.25x on $slow_cell caught in $caught of $pairs; 1.10x uniform found by the whole-run" \
     "test in $uniform of $pairs"
echo "$secs s; load average $load on $(nproc) CPUs"
ok=1
[ $((pairs - fp_pairs)) -ge $((pairs * 9 / 10)) ] || ok=0
[ "$worst" -le 1 ] || ok=0
[ "$caught" -eq "$pairs" ] || ok=0
[ "$uniform" -eq "$pairs" ] || ok=0
[ "$ok" -eq 1 ] && echo "aa: PASS" || { echo "aa: FAIL (the bars: docs/ci.md)"; exit 1; }
