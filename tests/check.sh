#!/usr/bin/env bash
# make check: runs test stages and sums them. Each stage is three arguments: a name, the command
# that builds it, the command that runs it (a runner printing "N passed, M failed[, K skipped]").
# A stage that fails to build or prints no summary counts as one failure. The last line printed is
# the sum: "N passed, M failed".
set -u
passed=0 failed=0 skipped=0
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

while [ $# -ge 3 ]; do
    name=$1 build=$2 run=$3
    shift 3
    echo "== $name"
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

if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
