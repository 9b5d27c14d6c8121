#!/usr/bin/env bash
# Runs forecastd's benchmarks and prints the results.
#
#   Benchmarks/run.sh [extra arguments for `swift package benchmark`]
#
# e.g. `Benchmarks/run.sh --filter 'Nearest'` or `Benchmarks/run.sh --format markdown`.
# Builds in release mode in $BENCHMARK_BUILD_DIR (default /tmp/forecastd-bench-build), outside the
# repository, then prints the resident memory the gazetteer adds to a process, first with the
# file evicted from the page cache (as after a boot), then with the file cached.
# Needs nothing beyond the Swift toolchain: the malloc counts come from ordo-one/benchmark's own
# malloc interposer (no jemalloc). For steady figures run it on an otherwise idle machine.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build_dir="${BENCHMARK_BUILD_DIR:-/tmp/forecastd-bench-build}"

echo "== ordo-one/benchmark: GazetteerBenchmarks"
swift package --package-path "$here" --scratch-path "$build_dir" benchmark --no-progress "$@"

echo
echo "== Resident memory of the gazetteer's mapping (GazetteerMemory)"
swift build --package-path "$here" --scratch-path "$build_dir" -c release --product GazetteerMemory >/dev/null
"$build_dir/release/GazetteerMemory" --cold
echo
"$build_dir/release/GazetteerMemory"
