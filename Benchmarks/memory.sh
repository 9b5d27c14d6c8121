#!/usr/bin/env bash
# The daemon's memory as the kernel counts it: RssAnon, RSS (/proc/PID/status) and Pss
# (/proc/PID/smaps_rollup), idle after start-up and its first fetch, then after each of a few refreshes.
# Pinned, no gpsd, a local HTTP server replaying a recorded Open-Meteo answer (moved to today).
#
#   Benchmarks/memory.sh                      the release build (built first into .build-release)
#   BUILD=debug Benchmarks/memory.sh          the debug build as it is in .build/debug
#   BINARY=/path/to/forecastd Benchmarks/memory.sh    another binary, e.g. an older commit's
#   SETTLE=10 REFRESHES=5 Benchmarks/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh
settle=${SETTLE:-10}
refreshes=${REFRESHES:-5}
bench_workdir memory
bench_binaries
bench_serve_forecast
# Warnings and air quality off, as in idle.sh: the figures are the daemon's own, not those services' answers.
bench_settings "$work"
bench_start_daemon "$work"

measure() {
  local anon rss pss
  anon=$(awk '/^RssAnon:/ {print $2}' "/proc/$daemon/status")
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$daemon/status")
  pss=$(awk '/^Pss:/ {print $2}' "/proc/$daemon/smaps_rollup")
  printf '%-28s RssAnon %6.1f MB   Pss %6.1f MB   RSS %6.1f MB\n' "$1" "$(echo "$anon/1024" | bc -l)" \
    "$(echo "$pss/1024" | bc -l)" "$(echo "$rss/1024" | bc -l)"
}
sleep "$settle"
bench_wait_forecast "$work"
echo "binary: $BINARY ($(stat -c %s "$BINARY") bytes)"
measure "idle, after the first fetch"
for i in $(seq 1 "$refreshes"); do
  # A user's refresh is allowed every 10 s.
  "$CTL" refresh --socket "$work/run/forecastd.sock" >/dev/null
  sleep 11
  measure "after refresh $i"
done
