# Sourced by run.sh (bash): the CPU it pins to and how the user's arguments after -- combine
# with its own. tests/test_cli.c runs these functions alone.

# The last CPU of this process's allowed set (taskset, cgroups), which need not be nproc - 1.
last_allowed_cpu() {
    local last
    last=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
        tail -n 1)
    echo "${last##*-}"
}

# The implementations of some kinds (KIND[,KIND...]: corobench, peer, language, plugin, external),
# comma-separated, from the rows of this build (corobench list impls --kind). The C ones are
# corobench's own and the peers; the languages' own runtimes time themselves (the slowdown knob
# of docs/ci.md cannot reach them). run.sh, tests/aa.sh.
impls_of_kind() {
    bin/corobench list impls --kind "$1" | awk '/^implementations:/ { on = 1; next }
        /^[a-z]/ { on = 0 } on && /^  [a-z]/ { print $1 }' | paste -sd, -
}
c_impls() { impls_of_kind corobench,peer; }
langs() { impls_of_kind language; }

# The most io connections a cell may open here, at most CAP: io's own check says how many the
# descriptor limit allows (RLIMIT_NOFILE's hard one, which a cell raises its soft one to), so
# the figure is the workload's and not a copy of its arithmetic. run.sh's thread stage.
io_max_conns() { # CAP
    local out
    if out=$(bin/corobench run --workload io --impl asm --param conns="$1" --dry-run 2>&1); then
        echo "$1"
    else
        sed -n 's/.*valid: conns up to \([0-9][0-9]*\) here.*/\1/p' <<<"$out" | grep . ||
            { echo "run-args.sh: io_max_conns: $out" >&2; return 1; }
    fi
}

# The user's arguments (the array extra) win over run.sh's own: an option of run.sh's that the user
# also gives is dropped from run.sh's part (for --param, the same parameter name), since run
# refuses an option given twice. -o stays: run.sh names its files and reports on them.
user_gave() { # OPTION [PARAM]: 0 when the user's arguments give it
    local a prev=""
    for a in "${extra[@]}"; do
        if [ $# -eq 1 ]; then
            case "$a" in "$1" | "$1"=*) return 0 ;; esac
        elif [ "$prev" = --param ]; then
            a=${a%%=*}
            [ "${a##*.}" = "$2" ] && return 0
        fi
        prev=$a
    done
    return 1
}
drop_given() { # ARRAY-NAME: its options the user also gives removed
    local -n arr=$1
    local kept=() i=0 o name
    while [ "$i" -lt "${#arr[@]}" ]; do
        o=${arr[$i]}
        case "$o" in
        --no-table | --quick) user_gave "$o" || kept+=("$o"); i=$((i + 1)) ;;
        --param) name=${arr[$((i + 1))]%%=*}
                 user_gave --param "${name##*.}" || kept+=("$o" "${arr[$((i + 1))]}"); i=$((i + 2)) ;;
        -o) kept+=("$o" "${arr[$((i + 1))]}"); i=$((i + 2)) ;;
        -*) user_gave "$o" || kept+=("$o" "${arr[$((i + 1))]}"); i=$((i + 2)) ;;
        *) kept+=("$o"); i=$((i + 1)) ;;
        esac
    done
    arr=("${kept[@]}")
}

# The suite's report of FILE... as REPORT.md, then as one page (REPORT.html, its plots drawn again
# in place), with the records of the fleet directory FLEET beside them (docs/record.md, "The
# fleet"): these files first, the record of their own CPU kind left out (this run stands for
# it); a fleet that is empty or cannot be read leaves the report to these files alone, its first
# lines saying why (report --with-fleet). run.sh.
suite_report() { # FLEET REPORT.md FILE...
    local fleet=$1 md=$2
    shift 2
    bin/corobench report "$@" --with-fleet "$fleet" -o "$md" &&
        bin/corobench report "$@" --with-fleet "$fleet" -o "${md%.md}.html" --force
}

# make's output condensed (stdin to stdout, a line as it comes): a compiler's or a tool's command
# becomes one line naming the step and what it makes ("  CC   build/x86_64/harness/run/plan.o");
# anything else (a warning, an error, make's own messages) passes as it is. With a file argument,
# the number of steps is written there at the end.
condense_make() {
    awk -v countfile="${1:-}" '
    $1 ~ /^((aarch64-linux-gnu-)?gcc|cc|g\+\+|c\+\+|clang|clang\+\+)$/ {
        out = ""; step = "LD"
        for (i = 2; i <= NF; i++) {
            if ($i == "-o" && i < NF) out = $(i + 1)
            else if ($i == "-c" || $i == "-S") step = "CC"
            else if ($i == "-E") step = "CPP"
        }
        sub(/\.tmp$/, "", out)
        printf "  %-5s %s\n", step, out; fflush(); n++; next
    }
    $1 ~ /cb_asmrw$/ { printf "  %-5s %s%s\n", "RW", $2, ($3 ~ /^--/ ? " " $3 : ""); fflush(); n++
        next }
    $1 ~ /objcopy$/ { next } # the second half of a CC step above
    $1 == "mcs" { o = ""; for (i = 2; i <= NF; i++) if ($i ~ /^-out:/) o = substr($i, 6)
        printf "  %-5s %s\n", "MCS", o; fflush(); n++; next }
    $1 == "cd" && $2 == "impls/go" { skip = 1 }
    skip { if ($0 !~ /\\$/) { skip = 0; printf "  %-5s %s\n", "GO", "bin/corobench-go"; fflush(); n++ }
           next }
    $1 == "printf" && /BuildInfo/ { next }
    { print; fflush() }
    END { if (countfile != "") print n + 0 > countfile }'
}

# Seconds as "4 min 20 s" (or "12.3 s" under a minute).
human_secs() {
    awk -v s="$1" 'BEGIN { if (s < 60) printf "%.1f s\n", s; else printf "%d min %d s\n", s / 60, s % 60 }'
}
# A dry run's stages' estimates added up: each "estimated time: M:SS" (or H:MM:SS) line of the
# plans in FILE, the sum as M:SS or H:MM:SS.
sum_estimates() {
    awk '/^estimated time: / { n = split($3, a, ":"); s = 0
                                for (i = 1; i <= n; i++) s = s * 60 + a[i]
                                t += s }
         END { t += 0
               if (t >= 3600) printf "%d:%02d:%02d\n", t / 3600, t % 3600 / 60, t % 60
               else printf "%d:%02d\n", t / 60, t % 60 }' "$1"
}
# Seconds since T0 (a `date +%s.%N`).
secs_since() {
    awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'
}
