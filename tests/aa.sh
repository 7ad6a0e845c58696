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
#                          The case instr (not in the default CASES: callgrind takes minutes a
#                          run) counts instructions: RUNS A/A ab runs of INSTR_GRID with
#                          --events instructions, none may show a change, and RUNS ab runs
#                          against a copy of this tree built with CB_TEST_EXTRA_WORK=KNOB_NOPS
#                          (5: about +2% instructions per node in sm's recursive body), each of
#                          which must show that cell's change and no other.
#   tests/aa.sh --short    make check's stage: one A/A ab of a 9-cell grid, 4 rounds (8 at most);
#                          fails when more than one cell gets a timing verdict (regressed or
#                          improved), the whole run is regressed, or ab fails otherwise; prints
#                          "1 passed, 0 failed" or why not.
# ARGS (env) adds ab arguments (--pin 1, --rounds N); AA_KEEP=DIR keeps the files there; RUNS=N
# sets the runs per case; CASES="aa slow" picks the cases (aa, slow, uniform, five, instr).
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

. scripts/run-args.sh
if [ "$mode" = --short ]; then
    grid=(--impl asm,sm,closure --workload pingpong,recursive,spawn --param switches=20000
          --param height=10 --param n=1000 --reps 3 --min-rep-ms 2 --rounds 4 --max-rounds 8)
else
    # --quick's grid of the C implementations (the languages' runtimes time themselves: the
    # slowdown knob cannot reach them)
    grid=(--quick --impl "$(c_impls)")
fi
# ARGS win over the grid's own options (ab refuses an option given twice): ARGS="--rounds 6"
drop_given grid

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

# instr's grid: cells whose instructions per op callgrind counts in seconds, a few rounds of time
instr_default="--impl asm,sm,closure,fcontext,cxx20,ucontext --workload recursive,pingpong,await"
instr_default+=" --param height=12 --param switches=100000 --param calls=20000 --rounds 2"
instr_default+=" --max-rounds 2 --reps 3 --min-rep-ms 2"
read -r -a instr_grid <<< "${INSTR_GRID:-$instr_default}"
instr_ab() { # instr_ab OUT NEWDIR: one A/B run of instr's grid with instructions; exit status
    local out=$1 rc=0
    bin/corobench ab --base . --new "$2" "${instr_grid[@]}" --events instructions "${extra[@]}" \
        --format md -o "$out.json" > "$out.md" 2> "$out.log" || rc=$?
    if [ "$rc" -ge 2 ]; then
        echo "aa.sh: ab $out: exit $rc:" >&2
        tail -3 "$out.log" >&2
        exit 1
    fi
    return "$rc"
}
# instr_changed OUT: how many table rows of OUT.md say their instructions per op changed
instr_changed() { grep -E '^\|' "$1.md" | grep -c ' changed |'; }
instr_line() { grep '^- instructions per op' "$1.md" | sed 's/^- //; s/: reported, not gated.*//'; }

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
aa_ok=0 aa_unchanged=0 worst=0 caught=0 uniform=0 five=0 i_same=0 i_caught=0
case " $cases " in *" instr "*)
    # the knob build: this tree's tracked files as they are, built with the extra loop
    knob=$tmp/knob nops=${KNOB_NOPS:-5}
    rm -rf "$knob" && mkdir -p "$knob"
    git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$knob"
    if ! make -C "$knob" -j2 all CPPFLAGS="-DCB_TEST_EXTRA_WORK=$nops" > "$tmp/knob.log" 2>&1; then
        echo "aa.sh: the knob build (CB_TEST_EXTRA_WORK=$nops) failed: $tmp/knob.log" >&2
        exit 1
    fi ;;
esac
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
        instr)
            instr_ab "$out.aa" . || rc=$?
            n=$(instr_changed "$out.aa")
            if [ "$n" -eq 0 ] && grep -q '^- instructions per op ([a-z]*): in both arms' "$out.aa.md"; then
                i_same=$((i_same + 1)) v=same
            else
                v="$n changed"
            fi
            echo "run $r instructions A/A: $v; $(instr_line "$out.aa")"
            rc=0
            instr_ab "$out.knob" "$knob" || rc=$?
            n=$(instr_changed "$out.knob")
            row=$(grep -E "$cell_re" "$out.knob.md" | awk -F'|' '{print $7}' | tr -s ' ')
            if [ "$n" -eq 1 ] && grep -E "$cell_re" "$out.knob.md" | grep -q ' changed |'; then
                i_caught=$((i_caught + 1)) v=caught
            else
                v="missed ($n cells changed)"
            fi
            echo "run $r instructions +${nops} nops in $slow_cell: $v:$row; $(instr_line "$out.knob")" ;;
        *) echo "aa.sh: unknown case '$c' (valid: aa, slow, uniform, five, instr)" >&2; exit 2 ;;
        esac
    done
done
secs=$(($(date +%s) - t0))
echo "A/A: ab exit 0 in $aa_ok of $runs; whole run unchanged in $aa_unchanged of $runs; at" \
     "most $worst cells regressed in one run"
echo "A/B: 1.25x on $slow_cell caught in $caught of $runs; 1.10x on every cell found by the" \
     "whole-run test in $uniform of $runs; 1.05x in $five of $runs"
case " $cases " in *" instr "*)
    echo "instructions: A/A unchanged in $i_same of $runs; +$nops nops in $slow_cell caught" \
         "(and no other cell) in $i_caught of $runs" ;;
esac
echo "$secs s; load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
ok=1
case " $cases " in *" aa "*)
    [ "$aa_ok" -ge $((runs * 9 / 10)) ] && [ "$worst" -le 1 ] &&
        [ "$aa_unchanged" -ge $((runs * 9 / 10)) ] || ok=0 ;;
esac
case " $cases " in *" slow "*) [ "$caught" -eq "$runs" ] || ok=0 ;; esac
case " $cases " in *" uniform "*) [ "$uniform" -ge $((runs * 9 / 10)) ] || ok=0 ;; esac
case " $cases " in *" instr "*) [ "$i_same" -eq "$runs" ] && [ "$i_caught" -eq "$runs" ] || ok=0 ;; esac
[ "$ok" -eq 1 ] && echo "aa: PASS" || { echo "aa: FAIL (the bars: docs/ci.md)"; exit 1; }
