#!/usr/bin/env bash
# Installs the Debian 12 packages corobench needs that are missing, by set:
#   run    what ./run.sh needs: the build, JSON, events, plots, and the optional runtimes
#          (Lua, Go, Node, C#, LuaJIT, Boost.Context, C++20 by g++ and clang++): without one, its implementation
#          is unavailable (`corobench list` says why), never a refusal to run
#   test   run + what `make check` adds: the AArch64 cross build and qemu-user, google
#          benchmark's compare.py (with SciPy) that reads `export --format gbench`
#   dev    test + fuzzing (clang with libFuzzer and the sanitizer runtimes) + chromium (a
#          screenshot of the HTML report)
# Usage: scripts/install-deps.sh [run|test|dev] [--check]   (default: dev, everything)
# Without root it only says what is missing, and fails only when a required package is.
# --check: report only, exit 1 if anything of the set is missing. run.sh uses `run`; `make check`
# (and so .ci/run) `test`, going on without what could not be installed.
set -euo pipefail

set_name=dev check=0
for a in "$@"; do
    case "$a" in
    run | test | dev) set_name=$a ;;
    --check) check=1 ;;
    *) echo "install-deps.sh: unknown argument '$a' (valid: run, test, dev, --check)" >&2; exit 2 ;;
    esac
done

# Required for the set: corobench cannot build or run its tests without them.
required=(
    gcc make git                          # build
    libjansson-dev                        # every JSON read and write
    libpfm4-dev                           # event names and encodings for perf_event_open
    valgrind                              # <valgrind/valgrind.h> stack annotations
    gnuplot-nox                           # the report's plots
    liburcu-dev libck-dev                 # the scheduler's central queues (docs/sched.md)
)
# Optional runtimes: the Makefile probes each; a missing one makes its implementation unavailable.
optional=(
    pkg-config liblua5.4-dev              # the lua implementation, embedded (docs/external.md)
    golang-go                             # the go implementation: make builds bin/corobench-go
    libboost-context-dev                  # the fcontext backend (Boost.Context's own switch)
    libboost-fiber-dev                    # the fiber peer (Boost.Fiber's work_stealing, docs/sched.md)
    g++                                   # the cxx20 family (C++20 coroutines)
    clang                                 # cxx20-clang: the same C++20 sources by clang++ 14
    mono-runtime mono-mcs                 # the csharp implementation: make builds bin/corobench-csharp.exe
    luajit lua-cjson                      # the luajit implementation (impls/luajit/, its JSON)
)
# The node implementation needs a `node` (Node.js 18 or later); Debian's nodejs only when none is
# there (a newer one from elsewhere, e.g. NodeSource's, is kept).
command -v node >/dev/null 2>&1 || optional+=(nodejs)
if [ "$set_name" != run ]; then
    required+=(
        gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user   # make check's aarch64 stage
        libbenchmark-tools python3-scipy  # make check: google benchmark's compare.py reads export --format gbench
    )
fi
if [ "$set_name" = dev ]; then
    required+=(clang libclang-rt-14-dev)  # make fuzz: libFuzzer and the sanitizer runtimes
    # a headless browser to look at `report --format html` (docs/report.md); no test needs it
    required+=(chromium)
fi
if [ "$set_name" != run ]; then
    required+=("${optional[@]}") # make check tests every implementation
    optional=()
fi

# The packages of "$@" not installed, in one dpkg-query (one call per package took seconds on a
# loaded machine, on every make check).
missing_of() {
    [ $# -gt 0 ] || return 0
    local installed p
    # dpkg-query exits 1 when a package is unknown to dpkg (never installed, no apt lists yet):
    # under pipefail that ended this subshell silently and nothing counted as missing.
    installed=" $({ dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null || true; } |
        awk '/ install ok installed$/ { printf "%s ", $1 }')"
    for p in "$@"; do
        [[ $installed == *" $p "* ]] || echo "$p"
    done
}
mapfile -t missing_req < <(missing_of "${required[@]}")
mapfile -t missing_opt < <(missing_of "${optional[@]}")
missing=("${missing_req[@]}" "${missing_opt[@]}")

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$check" -eq 1 ]; then
    echo "missing packages ($set_name): ${missing[*]}" >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "corobench: missing packages ($set_name): ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
    if [ ${#missing_req[@]} -eq 0 ]; then
        echo "corobench: only optional runtimes are missing: their implementations will be unavailable" >&2
        exit 0
    fi
    exit 1
fi
echo "corobench: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# All at once; if that fails (one package not in the archive), one at a time, so that one missing
# package does not keep the others out, then fail naming the ones that would not install.
if [ ${#missing_req[@]} -gt 0 ] &&
    ! apt-get install -y -qq --no-install-recommends "${missing_req[@]}" >/dev/null; then
    failed=()
    for p in "${missing_req[@]}"; do
        apt-get install -y -qq --no-install-recommends "$p" >/dev/null || failed+=("$p")
    done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "corobench: could not install ${failed[*]} ($set_name)" >&2
        exit 1
    fi
fi
# An optional runtime that cannot be installed leaves its implementation unavailable.
[ ${#missing_opt[@]} -eq 0 ] ||
    apt-get install -y -qq --no-install-recommends "${missing_opt[@]}" >/dev/null ||
    echo "corobench: could not install ${missing_opt[*]}: their implementations will be unavailable" >&2
