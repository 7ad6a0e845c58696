#!/usr/bin/env bash
# Installs the Debian 12 packages corobench needs that are missing; used by run.sh and .ci/run.
# Without root it only says what is missing. --check: report only, exit 1 if anything is missing.
set -euo pipefail

packages=(
    gcc make git                          # build
    libjansson-dev                        # every JSON read and write
    libpfm4-dev                           # event names and encodings for perf_event_open
    valgrind                              # <valgrind/valgrind.h> stack annotations
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user   # make check-aarch64
    gnuplot-nox                           # plots
    pkg-config liblua5.4-dev              # the lua implementation, embedded (docs/external.md)
    golang-go                             # the go implementation: make builds bin/corobench-go
    clang libclang-rt-14-dev              # make fuzz: libFuzzer and the sanitizer runtimes
    libboost-context-dev                  # the fcontext backend (Boost.Context's own switch)
    g++                                   # the cxx20 family (C++20 coroutines)
    mono-runtime mono-mcs                 # the csharp implementation: make builds bin/corobench-csharp.exe
    luajit lua-cjson                      # the luajit implementation (impls/luajit/, its JSON)
    libbenchmark-tools python3-scipy      # make check: google benchmark's compare.py reads export --format gbench
)
# The node implementation needs a `node` (Node.js 18 or later); Debian's nodejs only when none is
# there (a newer one from elsewhere, e.g. NodeSource's, is kept).
command -v node >/dev/null 2>&1 || packages+=(nodejs)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "${1:-}" = "--check" ]; then
    echo "missing packages: ${missing[*]}" >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "corobench: missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "corobench: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
