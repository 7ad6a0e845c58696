# Sourced by run.sh (bash): the CPU it pins to and how the user's arguments after -- combine
# with its own. tests/test_cli.c runs these functions alone.

# The last CPU of this process's allowed set (taskset, cgroups), which need not be nproc - 1.
last_allowed_cpu() {
    local last
    last=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
        tail -n 1)
    echo "${last##*-}"
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
        --no-table) user_gave "$o" || kept+=("$o"); i=$((i + 1)) ;;
        --param) name=${arr[$((i + 1))]%%=*}
                 user_gave --param "${name##*.}" || kept+=("$o" "${arr[$((i + 1))]}"); i=$((i + 2)) ;;
        -o) kept+=("$o" "${arr[$((i + 1))]}"); i=$((i + 2)) ;;
        -*) user_gave "$o" || kept+=("$o" "${arr[$((i + 1))]}"); i=$((i + 2)) ;;
        *) kept+=("$o"); i=$((i + 1)) ;;
        esac
    done
    arr=("${kept[@]}")
}
