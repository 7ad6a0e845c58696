#!/usr/bin/env bash
# make check: runs test stages and sums them. Each stage is four arguments: a name, what it needs
# (space-separated commands, or absolute paths that must exist; "" for nothing more than the
# build), the command that builds it, the command that runs it (a runner printing "N passed,
# M failed[, K skipped]"). A stage whose need is missing is skipped with the reason (make check
# first installs them through scripts/install-deps.sh test; a tool that could not be installed
# is no failure of the code). A stage that fails to build or prints no summary counts as one
# failure. The last line printed is the sum: "N passed, M failed[, K skipped]", after a line
# naming the stages skipped, if any.
set -u
passed=0 failed=0 skipped=0
skipped_stages=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

tally() { # echoes a runner's output and adds its summary line to the totals
    local line
    while IFS= read -r line; do
        if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
            passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
            skipped=$((skipped + ${BASH_REMATCH[4]:-0}))
            echo "($1: $line)"
        else
            printf '%s\n' "$line"
        fi
    done < "$log"
}

# The first need of $@ that is missing ("" when all are there).
missing_need() {
    local n
    for n in "$@"; do
        if [[ $n == /* ]]; then
            [ -e "$n" ] || { echo "$n"; return; }
        else
            command -v "$n" >/dev/null 2>&1 || { echo "$n"; return; }
        fi
    done
}

while [ $# -ge 4 ]; do
    name=$1 needs=$2 build=$3 run=$4
    shift 4
    echo "== $name"
    # shellcheck disable=SC2086 # the needs are words
    miss=$(missing_need $needs)
    if [ -n "$miss" ]; then
        echo "SKIP $name: $miss not found (scripts/install-deps.sh test installs it)"
        skipped_stages+=("$name ($miss not found)")
        continue
    fi
    if ! bash -c "$build" > "$log" 2>&1; then
        cat "$log"
        echo "FAIL $name: build failed"
        failed=$((failed + 1))
        continue
    fi
    bash -c "$run" > "$log" 2>&1
    tally "$name"
    grep -Eq '^[0-9]+ passed, [0-9]+ failed' "$log" || { echo "FAIL $name: no summary"; failed=$((failed + 1)); }
done

[ ${#skipped_stages[@]} -eq 0 ] || echo "stages skipped: ${skipped_stages[*]}"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
