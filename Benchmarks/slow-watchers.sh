#!/usr/bin/env bash
# Memory held for watchers that never read (issue 28, G8): 500 clients ask `watch` and read nothing, the report
# changes 100 times (the units, back and forth, through the socket), then every watcher closes; RssAnon, RSS and
# Pss before, while they are connected and after they have all closed, against a release build of forecastd
# pinned to one place with a forecast from a local HTTP server replaying a recorded Open-Meteo answer
# (Benchmarks/lib.sh). max_clients is raised to let 500 watchers in.
#
#   Benchmarks/slow-watchers.sh                          release build (built first into .build-release)
#   BUILD=debug Benchmarks/slow-watchers.sh
#   WATCHERS=200 CHANGES=50 FORMAT=waybar Benchmarks/slow-watchers.sh
#   REQUEST=status BINARY=.build-release/release/forecastd Benchmarks/slow-watchers.sh
#                              (clients that ask `status` once and stay: what a connection costs by itself)
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh
bench_workdir slow-watchers
bench_binaries
bench_serve_forecast
bench_settings "$work" "max_clients = $(( ${WATCHERS:-500} + 16 ))"
bench_start_daemon "$work"
bench_wait_forecast "$work"
python3 Benchmarks/slow_watchers.py "$work/run/forecastd.sock" "$daemon" --watchers "${WATCHERS:-500}" \
  --changes "${CHANGES:-100}" --format "${FORMAT:-json}" ${REQUEST:+--request "$REQUEST"}
