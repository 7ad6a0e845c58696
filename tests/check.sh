#!/usr/bin/env bash
# make check: the native test binary, then the AArch64 port (cross-built, run under qemu-user).
# Prints every test line and, last, the sum: "N passed, M failed".
# usage: tests/check.sh NATIVE_TEST_BINARY "AARCH64 BUILD COMMAND" "AARCH64 RUN COMMAND"
set -u
native=$1 cross_build=$2 cross_run=$3
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

tally() { # reads a runner's output on stdin, echoes it, adds its summary line to the totals
    local line p f s
    while IFS= read -r line; do
        if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
            p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
            passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
            echo "($1: $line)"
        else
            printf '%s\n' "$line"
        fi
    done
}

echo "== native tests ($native)"
"$native" > "$log" 2>&1
rc=$?
tally native < "$log"
grep -Eq '^[0-9]+ passed, [0-9]+ failed' "$log" || { echo "FAIL native runner: no summary (exit $rc)"; failed=$((failed + 1)); }

echo "== aarch64 tests under qemu"
if $cross_build > "$log" 2>&1; then
    $cross_run > "$log" 2>&1
    tally aarch64 < "$log"
    grep -Eq '^[0-9]+ passed, [0-9]+ failed' "$log" || { cat "$log"; echo "FAIL aarch64 runner: no summary"; failed=$((failed + 1)); }
else
    cat "$log"
    echo "FAIL aarch64 cross build"
    failed=$((failed + 1))
fi

if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
