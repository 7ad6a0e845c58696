#!/usr/bin/env bash
# The A/A and A/B tests of the paired gate, `corobench ab` (docs/ci.md, "Paired A/B"): how often
# it calls an unchanged build slower, and whether it catches a known slowdown. Base and new are
# this checkout's build, reached through two links at paths of equal length (ab --base .).
#   tests/aa.sh            make aa: RUNS (10) ab runs of the --quick grid's C cells per case:
#                          A/A; the new arm's SLOW_CELL (sm/recursive) slowed 1.25x; every cell
#                          of the new arm slowed 1.10x; and 1.05x (COROBENCH_TEST_SLOWDOWN,
#                          harness/measure/cell.c, reaches the new arm only). Prints the counts;
#                          exit 1 when one misses the issue's bar: A/A ab exits 0 in >= 9 of 10,
#                          no run has more than one cell regressed, the whole run is unchanged in
#                          >= 9 of 10; 1.25x caught in 10 of 10; 1.10x found by the whole-run
#                          test in >= 9 of 10 (1.05x: the rate is reported, no bar).
#   tests/aa.sh --short    make check's stage: one A/A ab of a 9-cell grid, 4 rounds (8 at most);
#                          fails when more than one cell gets a timing verdict (regressed or
#                          improved), the whole run is regressed, or ab fails otherwise; prints
#                          "1 passed, 0 failed" or why not.
# ARGS (env) adds ab arguments (--pin 1, --rounds N); AA_KEEP=DIR keeps the files there; RUNS=N
# sets the runs per case; CASES="aa slow" picks the cases (aa, slow, uniform, five).
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
slow_cell=${SLOW_CELL:-sm/recursive}

if [ "$mode" = --short ]; then
    grid=(--impl asm,sm,closure --workload pingpong,recursive,spawn --param switches=20000
          --param height=10 --param n=1000 --reps 3 --min-rep-ms 2 --rounds 4 --max-rounds 8)
else
    # --quick's grid of the C implementations (the languages' runtimes time themselves: the
    # slowdown knob cannot reach them)
    . scripts/run-args.sh
    grid=(--quick --impl "$(c_impls)")
fi

# ab's md form: one table row per cell (`| **REGRESSED** | ... | `cell` |`), the summary as a
# list (`- whole run: ...: REGRESSED`); no line is wrapped, unlike the text form.
ab() { # ab OUT [ENV...]: one A/B run of the grid; its exit status
    local out=$1 rc=0
    shift
    env "$@" bin/corobench ab --base . "${grid[@]}" "${extra[@]}" --format md \
        -o "$out.json" > "$out.md" 2> "$out.log" || rc=$?
    if [ "$rc" -ge 2 ]; then
        echo "aa.sh: ab $out: exit $rc:" >&2
        tail -3 "$out.log" >&2
        exit 1
    fi
    return "$rc"
}
regressed() { grep -c '^| \*\*REGRESSED\*\* |' "$1.md"; }
verdicts() { grep -Ec '^\| (\*\*REGRESSED\*\*|improved) \|' "$1.md"; }
whole() { grep '^- whole run' "$1.md" | sed 's/^- //'; }

t0=$(date +%s)
if [ "$mode" = --short ]; then
    rc=0
    ab "$tmp/short" || rc=$?
    n=$(verdicts "$tmp/short")
    secs=$(($(date +%s) - t0))
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "aa (short): ab exit $rc, $n cells with a timing verdict; $(whole "$tmp/short"); $secs s," \
         "load average $load"
    if [ "$n" -gt 1 ] || grep -q '^- whole run: .*: REGRESSED$' "$tmp/short.md" ||
        grep -q '^- \*\*ERROR\*\*' "$tmp/short.md"; then
        grep -E '^\| (\*\*REGRESSED\*\*|improved) \||^- \*\*ERROR\*\*' "$tmp/short.md" | sed 's/^/    /'
        echo "FAIL aa: above the bound (more than one cell with a timing verdict, the whole run" \
             "regressed, or a cell failed)"
        echo "0 passed, 1 failed"
    else
        echo "PASS aa"
        echo "1 passed, 0 failed"
    fi
    exit 0
fi

runs=${RUNS:-10}
cases=${CASES:-aa slow uniform five}
aa_ok=0 aa_unchanged=0 worst=0 caught=0 uniform=0 five=0
impl=${slow_cell%/*} wl=${slow_cell#*/}
cell_re="\| \`$wl [^\`]* $impl/plain\` \|$"
for r in $(seq 1 "$runs"); do
    for c in $cases; do
        out=$tmp/$c$r rc=0
        case "$c" in
        aa) ab "$out" || rc=$?
            n=$(regressed "$out")
            [ "$rc" -ne 0 ] || aa_ok=$((aa_ok + 1))
            [ "$n" -le "$worst" ] || worst=$n
            grep -q '^- whole run: .*: unchanged$' "$out.md" && aa_unchanged=$((aa_unchanged + 1))
            echo "run $r A/A: exit $rc, $n cells regressed; $(whole "$out")" ;;
        slow) ab "$out" COROBENCH_TEST_SLOWDOWN="1.25@$slow_cell" || rc=$?
            if grep -Eq "^\| \*\*REGRESSED\*\* \|.*$cell_re" "$out.md"; then
                caught=$((caught + 1)) v=caught
            else
                v=missed
            fi
            echo "run $r 1.25x on $slow_cell: $v: $(grep -E "$cell_re" "$out.md" | tr -s ' ')" ;;
        uniform | five)
            f=1.10
            [ "$c" = five ] && f=1.05
            ab "$out" COROBENCH_TEST_SLOWDOWN=$f || rc=$?
            if grep -q '^- whole run: .*: REGRESSED$' "$out.md"; then
                v=found
                [ "$c" = five ] && five=$((five + 1)) || uniform=$((uniform + 1))
            else
                v=missed
            fi
            echo "run $r ${f}x on every cell: $v; $(whole "$out")" ;;
        *) echo "aa.sh: unknown case '$c' (valid: aa, slow, uniform, five)" >&2; exit 2 ;;
        esac
    done
done
secs=$(($(date +%s) - t0))
echo "A/A: ab exit 0 in $aa_ok of $runs; whole run unchanged in $aa_unchanged of $runs; at" \
     "most $worst cells regressed in one run"
echo "A/B: 1.25x on $slow_cell caught in $caught of $runs; 1.10x on every cell found by the" \
     "whole-run test in $uniform of $runs; 1.05x in $five of $runs"
echo "$secs s; load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
ok=1
case " $cases " in *" aa "*)
    [ "$aa_ok" -ge $((runs * 9 / 10)) ] && [ "$worst" -le 1 ] &&
        [ "$aa_unchanged" -ge $((runs * 9 / 10)) ] || ok=0 ;;
esac
case " $cases " in *" slow "*) [ "$caught" -eq "$runs" ] || ok=0 ;; esac
case " $cases " in *" uniform "*) [ "$uniform" -ge $((runs * 9 / 10)) ] || ok=0 ;; esac
[ "$ok" -eq 1 ] && echo "aa: PASS" || { echo "aa: FAIL (the bars: docs/ci.md)"; exit 1; }
