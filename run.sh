#!/usr/bin/env bash
# The one command: install missing Debian packages, build, run the default suite, write results
# and their report, this machine beside every other CPU kind of results/fleet/.
#   ./run.sh                 the default suite (180 s wall once built, report included, on a
#                            2-core Intel Xeon VM at load average 0.1-0.7; 196 s in a second
#                            run; a first run builds first, a line per step: minutes)
#   ./run.sh --quick         a small grid (72 s once built, same machine)
#   ./run.sh --calibrate     first fit the return-stack model to this CPU (under a minute;
#                            docs/rsb.md), then the suite, whose simulated counts then use it
#   ./run.sh --ci            one results file for a CI gate: a small grid of the C implementations
#                            with enough repetitions for `corobench compare` (docs/ci.md, "Gate
#                            your runtime"); no report. -- --save-baseline NAME keeps it as a
#                            named baseline, -- -o FILE names the file
#   ./run.sh --ci --base DIR the gate itself: the same grid through `corobench ab --base DIR`, the
#                            build in DIR (a checkout of main built by make) against this one,
#                            pair by pair in one window (docs/ci.md, "Paired A/B"); -- ARGS go
#                            to ab (--format md, --only-changed, --rounds R...); its exit status
#   ./run.sh --fleet         the default suite, then this CPU's record written or refreshed in
#                            results/fleet/<vendor>-<family>-<model>.json (docs/record.md, "The
#                            fleet"); with --calibrate or alone, not with --quick, --ci or -- ARGS
#   ./run.sh -- ARGS...      extra arguments for `corobench run` (e.g. -- --impl asm,sm;
#                            -- --dry-run plans every stage and adds up their estimates)
set -euo pipefail
cd "$(dirname "$0")"
. scripts/run-args.sh

quick=()
calibrate=0
ci=0
fleet=0
base=""
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=(--quick); shift ;;
    --calibrate) calibrate=1; shift ;;
    --ci) ci=1; shift ;;
    --fleet) fleet=1; shift ;;
    --base) [ $# -ge 2 ] || { echo "run.sh: --base needs a directory (valid: --ci --base DIR)" >&2; exit 2; }
            base=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (valid: --quick, --calibrate, --ci [--base DIR], --fleet, --help, -- ARGS...)" >&2
       exit 2 ;;
    esac
done
if [ -n "$base" ] && [ "$ci" -ne 1 ]; then
    echo "run.sh: --base '$base' is for --ci (valid: --ci --base DIR)" >&2
    exit 2
fi
# A CPU's record in the fleet is of the default suite, the same grid on every CPU.
if [ "$fleet" -eq 1 ] &&
    { [ ${#quick[@]} -ne 0 ] || [ "$ci" -eq 1 ] || [ ${#extra[@]} -ne 0 ]; }; then
    echo "run.sh: --fleet records the default suite (valid: --fleet alone or with --calibrate;" \
        "not with --quick, --ci or -- ARGS)" >&2
    exit 2
fi
# --ci runs a grid of its own: --quick beside it was ignored silently.
if [ ${#quick[@]} -ne 0 ] && [ "$ci" -eq 1 ]; then
    echo "run.sh: --quick and --ci are two grids (valid: one of --quick, --ci)" >&2
    exit 2
fi

scripts/install-deps.sh run
# The build, a line per step (make's commands condensed; its whole output in build/make.log),
# and how long it took. Once built, make only checks: bin/corobench is relinked when a source,
# the commit or the flags changed (the Makefile's BUILDINFO_STAMP), not on every run.
mkdir -p build
echo "run.sh: building (make -j$(nproc) all; its output in build/make.log)" >&2
build_t0=$(date +%s.%N)
if ! make -j"$(nproc)" all 2>&1 | tee build/make.log | condense_make build/make.steps >&2; then
    echo "run.sh: the build failed after $(human_secs "$(secs_since "$build_t0")")" \
        "(build/make.log has make's whole output)" >&2
    exit 1
fi
build_secs=$(secs_since "$build_t0")
if [ "$(cat build/make.steps)" -eq 0 ]; then
    echo "run.sh: the build is up to date (checked in $(human_secs "$build_secs"))" >&2
else
    echo "run.sh: built in $(human_secs "$build_secs") ($(cat build/make.steps) steps)" >&2
fi

# Pin the measured children to the last CPU we may use (away from CPU 0's interrupts).
pin=$(last_allowed_cpu)
host=$(hostname)
stamp=$(date -u +%Y%m%dT%H%M%S.%6NZ)
out="results/${host}-${stamp}.json"

if [ "$calibrate" -eq 1 ]; then
    if [ ! -x bin/corobench-rsbsim ]; then
        echo "run.sh: --calibrate needs the variant builds (x86-64 only)" >&2
        exit 2
    fi
    # results/calibration/<cpu key>.json, read by every later run as machine.rsb.
    bin/corobench calibrate --pin "$pin" --data plots/rsb-calibration.dat --force
    gnuplot -e "data='plots/rsb-calibration.dat'; out='plots/rsb-calibration.png'; subtitle='($(bin/corobench calibrate --print-key))'" \
        plots/rsb-calibration.gp
    echo "run.sh: plot plots/rsb-calibration.png"
fi

c_impls=$(c_impls)

# --ci: one file, one run. Every C implementation (an --impl among the extra arguments replaces
# them) on each workload at two points, each cell in 5 processes of 3 repetitions of at least
# 2 ms: compare decides a cell from the interval of new/base over both sides' processes
# (docs/ci.md), and more processes narrow it more than more repetitions in one would. Timing only: no simulated counts (their model is
# the CPU's), so the gate's deterministic fields are the work and the memory ones.
if [ "$ci" -eq 1 ]; then
    ci_sel=(--impl "$c_impls")
    for a in "${extra[@]}"; do
        case "$a" in --impl | --impl=*) ci_sel=() ;; esac
    done
    ci_out=(-o "results/${host}-${stamp}-ci.json")
    for a in "${extra[@]}"; do
        case "$a" in -o | --output | --output=*) ci_out=() ;; esac
    done
    ci_grid=(--pin "$pin" "${ci_sel[@]}" --workload pingpong,recursive,spawn,io
             --param pingpong.depth=0,16 --param pingpong.switches=20000
             --param recursive.height=12 --param spawn.n=1000 --param io.conns=4
             --param io.msgs=50 --reps 3 --min-rep-ms 2)
    # the user's options after -- win over these (--reps, --pin, --invocations, a parameter)
    if [ -n "$base" ]; then
        # ab's rounds are its processes; the verdict and both arms' files under results/ab/
        own=("${ci_grid[@]}")
        drop_given own
        bin/corobench ab --base "$base" "${own[@]}" "${extra[@]}"
        exit $?
    fi
    own=("${ci_grid[@]}" --invocations 5 --no-table "${ci_out[@]}")
    drop_given own
    bin/corobench run "${own[@]}" "${extra[@]}"
    exit $?
fi

status=0
# -- --dry-run: each stage prints its plan and its estimated time, kept in $plans to add them up
# at the end; nothing is written or reported
dry=0 plans=
if user_gave --dry-run; then
    dry=1 plans=$(mktemp)
    trap 'rm -f "$plans"' EXIT
fi
# A stage's run: its plan also into $plans in a dry run.
stage_run() {
    if [ "$dry" -eq 1 ]; then "$@" | tee -a "$plans"; else "$@"; fi
}
# The default suite: enough points for every plot and claim of the report (docs/report.md), in
# two runs of the C implementations written to two files that the report reads as one machine's:
# pingpong in both build variants (ret and jmp-return, side by side) with simulated return-stack
# counts (docs/rsb.md; x86-64 only, where make builds the variant binaries), the claims about
# the return stack being pingpong's; recursive, spawn and io in the plain build only, which keeps
# the suite within 5 minutes. pingpong runs 20,000 switches per instance (ucontext, about
# 0.3-1.3 us per switch, stays short; batching makes every repetition last 2 ms anyway); io
# sends 50 messages per connection; spawn runs both layouts (docs/memory.md): aligned, the
# regular layout's best case, and offset, every stack top and stackless frame moved by a seeded
# multiple of 64 bytes.
variants=() rsb=()
[ -x bin/corobench-rsbsim ] && variants=(--variant plain,jmpret --rsb sim) rsb=(--rsb sim)
pp_grid=(--workload pingpong --param depth=0,1,2,4,8,12,16,24,32 --param sites=distinct,same
         --param switches=20000)
# pingpong mode=asymmetric (each side yields to a root that resumes the other; stackful only, the
# stackless families' cells say why not) beside the pingpong run's symmetric cells at the same
# depths, with its simulated counts (docs/rsb.md); pipeline with 4 and 32 stages of 4 KiB items
# under both schedules (fifo's 32 items in flight outgrow L1, direct's one does not).
wl_grid=(--workload recursive,spawn,io,pingpong,pipeline
         --param recursive.height=8,10,12,14,16,18,20
         --param spawn.n=1000,10000,100000 --param spawn.layout=aligned,offset
         --param io.conns=1,4,16,64,256 --param io.msgs=50
         --param pingpong.mode=asymmetric --param pingpong.depth=0,8,16,32
         --param pingpong.switches=20000 --param pipeline.stages=4,32
         --param pipeline.sched=fifo,direct --param pipeline.items=500)
# Every cell in 3 processes (interleaved; docs/measurement.md, "Invocations") of 1 warm-up and 3
# kept repetitions of at least 2 ms each: the process is where this machine's variance is, so
# that is where the repetitions go, and fewer and shorter ones per process pay for the processes
# (the suite within 5 minutes on 2 cores). With 2 warm-ups and repetitions of 5 and 10 ms it
# took 442 s at load average 3.5: a cell of short instances spent 118 ms of each process on
# repetitions it drops or does not need that long (a 2 ms repetition is 10^5 clock reads'
# cost and rides over half a 4 ms tick at most), one of long instances (spawn of 10^5
# coroutines, recursive at height 20) ran 6 instances where 5 do. --quick: fewer points.
suite_reps=(--invocations 3 --reps 3 --warmup 1 --min-rep-ms 2)
pp_grid+=("${suite_reps[@]}")
wl_grid+=("${suite_reps[@]}")
# The switches alone (work=none, depth 0) of inline, asmjmp and sm, with and without the FPU
# control words (fpu=0,1; sm has no fpu): claim 19 sets inline against sm there, with fpu=0 as
# sm keeps no floating-point state, and inline against asmjmp with the same fpu. 5 cells, in the
# suite and in --quick alike.
sw_grid=(--workload pingpong --param depth=0 --param work=none --param fpu=0,1
         --param switches=20000 "${suite_reps[@]}")
sw_sel=(--impl inline,asmjmp,sm)
# Dead locals in coroutine frames (claim 22): spawn with each level's 1024 bytes of locals dead
# before the suspension (locals=dead) and live, at two depths, for sm (the state a person keeps)
# and the C++20 frames of both compilers. 12 small cells (n=1000), in the suite and in --quick
# alike; depth 1 and 4, not 0, so claims 8 and 18 and the spawn-memory plots (depth 0) do not
# take them.
dl_grid=(--workload spawn --param n=1000 --param depth=1,4 --param frame=1024
         --param locals=live,dead "${suite_reps[@]}")
dl_sel=(--impl sm,cxx20,cxx20-clang)
# Stacks that stay deep (claim 23): spawn where every coroutine recursed 16 levels of 1 KiB once
# before its suspension (deep_once=16) and without (0), asm, sm and copystack, 6 small cells,
# in the same file.
dp_grid=(--workload spawn --param n=1000 --param depth=1 --param frame=1024
         --param deep_once=0,16 "${suite_reps[@]}")
dp_sel=(--impl asm,sm,copystack)
# A few coroutines deep (claim 8's deep point): spawn where 1% of 1,000 coroutines go 32 levels
# of 1 KiB down and the rest stay in their body (deep_share=1), asm and the stackless sm,
# closure and cxx20, 4 cells (0.8 s alone at load average 1.8), in a file of their own.
ds_grid=(--workload spawn --param n=1000 --param depth=32 --param frame=1024
         --param deep_share=1 "${suite_reps[@]}")
ds_sel=(--impl asm,sm,closure,cxx20)
# A thread per connection (claim 25): io where thread runs each connection's client and server as
# OS threads, beside asm's and sm's coroutines, at 64 connections and at the most the descriptor
# limit lets io open (io_max_conns: RLIMIT_NOFILE's hard limit), at most 2,000 connections (4,000
# threads), 4 messages each, in a file of their own. 6 cells; under --quick, 64 and at most 500.
# The cap is time: a thread process (setup's 2 x conns threads, the memory pass, 1 warm-up and 3
# repetitions) took 8 s at 2,000 connections, 23 s at 5,000, and outlasted the 60 s cell timeout
# at 9,967 (this machine's descriptor limit of 20,000), on 2 cores at load average 4-7.
tp_cap=2000
[ ${#quick[@]} -eq 0 ] || tp_cap=500
tp_most=$(io_max_conns "$tp_cap") || tp_most=
tp_conns=64
if [ -n "$tp_most" ] && [ "$tp_most" -gt 64 ]; then
    tp_conns="64,$tp_most"
elif [ -n "$tp_most" ]; then
    tp_conns=$tp_most
fi
tp_grid=(--workload io --param conns="$tp_conns" --param msgs=4 "${suite_reps[@]}")
tp_sel=(--impl thread,asm,sm)
# The scheduler (claims 26 to 28, docs/sched.md): forkjoin and yieldstorm at their defaults on
# 1 worker and on every CPU (nproc), on each run queue (steal, wfcq, ck), sm's and closure's
# stackless tasks and asm's stackful ones beside direct (one thread, no scheduler), in a file of
# their own: 48 cells.
sc_grid=(--workload forkjoin,yieldstorm --param workers="1,$(nproc)" --param queue=steal,wfcq,ck
         "${suite_reps[@]}")
[ "$(nproc)" -gt 1 ] || sc_grid=(--workload forkjoin,yieldstorm --param workers=1
                                  --param queue=steal,wfcq,ck "${suite_reps[@]}")
sc_sel=(--impl sm,closure,asm,direct)
if [ ${#quick[@]} -ne 0 ]; then
    pp_grid=(--workload pingpong --param depth=0,16 --param sites=distinct,same
             --param switches=20000 "${suite_reps[@]}")
    wl_grid=(--workload recursive,spawn,io,pingpong,pipeline --param recursive.height=8,12
             --param spawn.n=1000 --param io.conns=4 --param io.msgs=50
             --param pingpong.mode=asymmetric --param pingpong.depth=0,16
             --param pingpong.switches=20000 --param pipeline.stages=32
             --param pipeline.sched=fifo,direct --param pipeline.items=200 "${suite_reps[@]}")
fi
# The C implementations on those grids; the languages' own runtimes (docs/external.md) on a
# smaller one in a third file (an interpreter at recursive.height=20 or spawn.n=100000 would
# take minutes), with the C implementations again so each language sits beside the C models
# measured at the same time; all files in one report.
# An --impl among the extra arguments is the user's selection: then those runs only, with it.
impl_sel=(--impl "$c_impls")
# OS threads cost microseconds per switch, as the interpreters do: recursive at height 20 alone
# would outlast the cell timeout, so threads run recursive, spawn and io on the languages' grid
# (they stay in the pingpong run, where one instance is 20,000 switches).
wl_sel=(--impl "$(printf '%s\n' "${c_impls//,/$'\n'}" | grep -vx thread | paste -sd, -)")
# The full depth sweep in both builds is for corobench's own runtimes and the baseline, which the
# return-stack claims are about; the peers' pingpong (fcontext, copystack, cxx20, thread) is on
# the languages' grid (depth 0, 4, 16), which keeps the suite within 5 minutes.
# closure's pingpong runs with both allocators: alloc=malloc, every frame from glibc, and
# alloc=pool, a free list per task (a parameter only closure has, so it goes with this selection).
pp_sel=(--impl asm,asmjmp,inline,ucontext,sm,closure,direct --param alloc=malloc,pool)
for a in "${extra[@]}"; do
    case "$a" in --impl | --impl=*) impl_sel=() wl_sel=() pp_sel=() sw_sel=() dl_sel=() dp_sel=() ds_sel=() tp_sel=() sc_sel=() ;; esac
done
wl_out="${out%.json}-workloads.json"
sw_out="${out%.json}-switch.json"
dl_out="${out%.json}-dead-locals.json"
dp_out="${out%.json}-deep-once.json"
ds_out="${out%.json}-deep-share.json"
tp_out="${out%.json}-threads.json"
sc_out="${out%.json}-scheduler.json"
# Each stage's place in the whole, on its progress lines (COROBENCH_STAGE, harness/run/progress.h).
nstages=9
[ ${#impl_sel[@]} -gt 0 ] && nstages=10
stage=0
for run in pingpong switch dead-locals deep-once deep-share threads scheduler workloads; do
    if [ "$run" = pingpong ]; then
        args=("${pp_grid[@]}" "${variants[@]}") file=$out sel=("${pp_sel[@]}")
    elif [ "$run" = switch ]; then
        args=("${sw_grid[@]}") file=$sw_out sel=("${sw_sel[@]}")
    elif [ "$run" = dead-locals ]; then
        args=("${dl_grid[@]}") file=$dl_out sel=("${dl_sel[@]}")
    elif [ "$run" = deep-once ]; then
        args=("${dp_grid[@]}") file=$dp_out sel=("${dp_sel[@]}")
    elif [ "$run" = deep-share ]; then
        args=("${ds_grid[@]}") file=$ds_out sel=("${ds_sel[@]}")
    elif [ "$run" = threads ]; then
        args=("${tp_grid[@]}") file=$tp_out sel=("${tp_sel[@]}")
    elif [ "$run" = scheduler ]; then
        args=("${sc_grid[@]}") file=$sc_out sel=("${sc_sel[@]}")
    else
        args=("${wl_grid[@]}" "${rsb[@]}") file=$wl_out sel=("${wl_sel[@]}")
    fi
    run_status=0
    own=(--pin "$pin" "${sel[@]}" "${args[@]}" -o "$file" --no-table)
    drop_given own
    stage=$((stage + 1))
    # the switches alone are work=none at depth 0: a user's depth or work is another stage's
    # (run refused depth=4 with work=none, after the first stage had run)
    if [ "$run" = switch ] && { user_gave --param depth || user_gave --param work; }; then
        echo "run.sh: [stage $stage/$nstages: switch] left out: it times the switches alone" \
            "(work=none at depth 0), and the arguments after -- set depth or work" >&2
        sw_out=
        continue
    fi
    # the deep point is a point of its own (deep_share=1 at depth 32): a user's depth or
    # deep_share is another stage's (depth=0 with deep_share=1 is refused)
    if [ "$run" = deep-share ] && { user_gave --param depth || user_gave --param deep_share; }; then
        echo "run.sh: [stage $stage/$nstages: deep-share] left out: it sends 1% of the" \
            "coroutines 32 levels down (deep_share=1 at depth 32), and the arguments after --" \
            "set depth or deep_share" >&2
        ds_out=
        continue
    fi
    # the thread stage is io alone, the scheduler's forkjoin and yieldstorm: a parameter after
    # -- that they do not take (work=none) is the other stages', and run would refuse it here
    # (its plan, checked without running, says so)
    if [ "$run" = threads ] || [ "$run" = scheduler ]; then
        probe=("${own[@]}" "${extra[@]}")
        user_gave --dry-run || probe+=(--dry-run)
        if ! why=$(bin/corobench run "${quick[@]}" "${probe[@]}" 2>&1 >/dev/null) &&
            [[ "$why" == *"unknown parameter"* ]]; then
            echo "run.sh: [stage $stage/$nstages: $run] left out: the arguments after --" \
                "give its workloads a parameter they do not take (${why#corobench: })" >&2
            if [ "$run" = threads ]; then tp_out=; else sc_out=; fi
            continue
        fi
    fi
    COROBENCH_STAGE="stage $stage/$nstages: $run" \
        stage_run bin/corobench run "${quick[@]}" "${own[@]}" "${extra[@]}" || run_status=$?
    if [ "$run_status" -ne 0 ] && [ "$run_status" -ne 1 ]; then
        exit "$run_status"
    fi
    [ "$run_status" -eq 0 ] || status=1
done
if [ "$dry" -eq 0 ]; then
    ln -sfn "$(basename "$out")" results/latest.json # pingpong's, the suite's first file
    echo "run.sh: results in $out (pingpong; results/latest.json points at it)," \
        "${sw_out:+$sw_out, }$dl_out, $dp_out${ds_out:+, $ds_out}${tp_out:+, $tp_out}${sc_out:+, $sc_out}" \
        "and $wl_out"
fi
reports=("$out" ${sw_out:+"$sw_out"} "$dl_out" "$dp_out" ${ds_out:+"$ds_out"} ${tp_out:+"$tp_out"}
         ${sc_out:+"$sc_out"} "$wl_out")
if [ ${#impl_sel[@]} -gt 0 ]; then
    lang_out="${out%.json}-languages.json"
    # await (every family, the languages' own included) and io's style=blocking and
    # style=prebuilt (the stackful families through the hooks, the second's blocking code a
    # library built apart: claim 12, beside every family's explicit cells) run here only.
    # spawn at depth 0 (n=1000,10000) is where claims 18 and 24 take every runtime's resident
    # bytes per suspended coroutine, each language beside the C models in one file.
    lang_grid=(--workload pingpong,recursive,spawn,io,await --param pingpong.depth=0,4,16
               --param pingpong.switches=20000 --param recursive.height=8,12,16
               --param spawn.n=1000,10000 --param io.conns=1,16 --param io.msgs=50
               --param io.style=explicit,blocking,prebuilt
               --param await.suspend_every=1,10,100,never --param await.calls=20000
               "${suite_reps[@]}")
    [ ${#quick[@]} -eq 0 ] ||
        lang_grid=(--workload pingpong,recursive,spawn,io,await --param pingpong.depth=0,16
                   --param pingpong.switches=20000 --param recursive.height=8 --param spawn.n=1000
                   --param io.conns=1 --param io.msgs=50
                   --param io.style=explicit,blocking,prebuilt
                   --param await.suspend_every=1,never
                   --param await.calls=20000 "${suite_reps[@]}")
    lang_status=0
    stage=$((stage + 1))
    # the user's arguments reach this stage as they reach the others (-- --dry-run plans it too)
    own=(--pin "$pin" --impl "$c_impls,$(langs)" "${lang_grid[@]}" -o "$lang_out" --no-table)
    drop_given own
    COROBENCH_STAGE="stage $stage/$nstages: languages" \
        stage_run bin/corobench run "${quick[@]}" "${own[@]}" "${extra[@]}" || lang_status=$?
    if [ "$lang_status" -ne 0 ] && [ "$lang_status" -ne 1 ]; then
        exit "$lang_status"
    fi
    [ "$lang_status" -eq 0 ] || status=1
    if [ "$dry" -eq 0 ]; then
        ln -sfn "$(basename "$out")" results/latest.json # the main run's, not the languages'
        echo "run.sh: the languages' runtimes in $lang_out"
    fi
    reports+=("$lang_out")
fi
if [ "$dry" -eq 1 ]; then
    echo "run.sh: the stages' estimates add up to $(sum_estimates "$plans"), the report's plots aside"
    exit "$status"
fi

# The report: claims with verdicts, plots (gnuplot, PNG and SVG in ${out%.json}-plots/), tables;
# all derived from the JSON; then the same as one self-contained page. This machine first, then
# every other CPU kind of results/fleet/ from its record (this CPU kind's record left out: this
# run stands for it); without such records, this machine's alone, the report's first lines
# saying why.
report="${out%.json}.md"
echo "run.sh: [stage $nstages/$nstages: report] the report and its plots" >&2
suite_report results/fleet "$report" "${reports[@]}"
echo "run.sh: report $report (one page: ${report%.md}.html), plots in ${report%.md}-plots/"
# --fleet: this CPU's record, results/fleet/<kind>.json from its machine.cpu, through a temporary
# file; export says which file, written or refreshed, in one line.
if [ "$fleet" -eq 1 ]; then
    bin/corobench export --fleet results/fleet "${reports[@]}" || exit $?
fi
[ "$status" -eq 0 ] || echo "run.sh: some cells failed or timed out; see their 'error' fields" >&2
exit "$status"
