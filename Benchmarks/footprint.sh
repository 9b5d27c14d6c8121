#!/usr/bin/env bash
# The idle daemon's footprint: resident memory and CPU use of a release build of forecastd with the
# gazetteer loaded, gpsd (fed by gpsfake) streaming fixes at about 1 Hz, and a forecast fetched from a
# local HTTP server replaying a recorded Open-Meteo response.
#
#   Benchmarks/footprint.sh              settle 15 s, then measure over 60 s
#   SETTLE=30 WINDOW=300 Benchmarks/footprint.sh
#   FORECASTD_BIN=.build-release/dist/bin/forecastd Benchmarks/footprint.sh    the static release (scripts/release)
#
# Needs gpsd, gpsd-clients and python3-gps (scripts/deps --test).
set -euo pipefail
cd "$(dirname "$0")/.."
settle=${SETTLE:-15}
window=${WINDOW:-60}

[[ -n ${FORECASTD_BIN:-} ]] || swift build -c release --product forecastd >/dev/null
source Benchmarks/peers.sh
start_peers footprint
start_daemon

sleep "$settle"
grep -q '"source":"gpsd"' "$work/run/report.json" || { echo "no gpsd position in the report:"; cat "$work/run/report.json" "$work/forecastd.log"; exit 1; }

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
before=$(ticks "$daemon")
sleep "$window"
after=$(ticks "$daemon")
rss=$(awk '/VmRSS/ {print $2}' "/proc/$daemon/status")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$daemon/status")
threads=$(awk '/Threads/ {print $2}' "/proc/$daemon/status")
gpsd_pid=$(pgrep -f "gpsd.*$gps_port" | head -1 || true)
gpsd_rss=$([ -n "$gpsd_pid" ] && awk '/VmRSS/ {print $2}' "/proc/$gpsd_pid/status" || echo "?")
writes=$(grep -c . "$work/forecastd.log" || true)

awk -v rss="$rss" -v hwm="$hwm" -v t="$threads" -v cpu=$((after - before)) -v hz="$hz" -v w="$window" -v g="$gpsd_rss" 'BEGIN {
  printf "forecastd resident memory: %.1f MB (peak %.1f MB), %d threads\n", rss / 1024, hwm / 1024, t
  printf "forecastd CPU over %d s idle: %.2f s = %.3f %% of one core\n", w, cpu / hz, 100 * cpu / hz / w
  printf "gpsd resident memory (for comparison): %s kB\n", g
}'
