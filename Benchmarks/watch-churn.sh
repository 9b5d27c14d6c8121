#!/usr/bin/env bash
# Memory over many short-lived watchers: a client connects, asks `watch`, reads the first report and
# closes, 20,000 times (16 at a time), against a release build of forecastd pinned to one place with a
# forecast from a local HTTP server replaying a recorded Open-Meteo response (Benchmarks/lib.sh). Prints RssAnon and RSS
# (/proc/PID/status), Pss (/proc/PID/smaps_rollup) and the `status` answer's clients and watchers before
# and after (Benchmarks/watch_churn.py).
#
#   Benchmarks/watch-churn.sh                      20,000 cycles, release build (built first into .build-release)
#   CYCLES=5000 BUILD=debug Benchmarks/watch-churn.sh
#   MODES=blind CONCURRENCY=48 BINARY=.build-release/release/forecastd Benchmarks/watch-churn.sh
#                                                  (one way of leaving; no build first)
#
# Modes (Benchmarks/watch_churn.py --mode): read (read the greeting and the first report, then close),
# blind (send `watch` and close at once), half-close (send `watch`, shut the sending side as
# `echo watch | socat` does, read the first report, close).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh
cycles=${CYCLES:-20000}
bench_workdir churn
bench_binaries
# The recorded Samara answer moved to today (Benchmarks/lib.sh): the Bromsgrove one the figures in
# docs/performance.md were measured with is now refused as months old.
bench_serve_forecast
bench_settings "$work"
bench_start_daemon "$work"
bench_wait_forecast "$work"
for mode in ${MODES:-read blind}; do
  python3 Benchmarks/watch_churn.py "$work/run/forecastd.sock" "$daemon" --cycles "$cycles" --mode "$mode" --concurrency "${CONCURRENCY:-16}"
done
