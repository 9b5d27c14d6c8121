#!/usr/bin/env bash
# Memory over many short-lived watchers: a client connects, asks `watch`, reads the first report and
# closes, 20,000 times (16 at a time), against a release build of forecastd pinned to one place with a
# forecast from a local HTTP server replaying a recorded Open-Meteo response. Prints RssAnon and RSS
# (/proc/PID/status), Pss (/proc/PID/smaps_rollup) and the `status` answer's clients and watchers before
# and after (Benchmarks/watch_churn.py).
#
#   Benchmarks/watch-churn.sh                      20,000 cycles, release build
#   CYCLES=5000 CONFIGURATION=debug Benchmarks/watch-churn.sh
#   MODES=blind CONCURRENCY=48 BUILD=0 Benchmarks/watch-churn.sh   (one way of leaving; no build first)
#
# Modes (Benchmarks/watch_churn.py --mode): read (read the greeting and the first report, then close),
# blind (send `watch` and close at once), half-close (send `watch`, shut the sending side as
# `echo watch | socat` does, read the first report, close).
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${CYCLES:-20000}
configuration=${CONFIGURATION:-release}
[ "${BUILD:-1}" = 0 ] || swift build -c "$configuration" --product forecastd >/dev/null

work=$(mktemp -d /tmp/fd-churn.XXXXXX)
http_port=$((26000 + RANDOM % 5000))
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www" "$work/run"
cp Tests/Fixtures/open-meteo/forecast-bromsgrove-gb-current-hourly-daily-fahrenheit-kmh-timezone-auto.json "$work/www/forecast"
(cd "$work/www" && exec /usr/bin/python3 -m http.server "$http_port" --bind 127.0.0.1 >/dev/null 2>&1) &
pids+=($!)
cat >"$work/forecastd.toml" <<TOML
[location]
mode = "pinned"
static_file = ""
[location.pin]
latitude = 52.3357
longitude = -2.0619
name = "Bromsgrove"
[location.ip]
enabled = false
[location.gpsd]
enabled = false
[providers]
order = ["open-meteo"]
[providers.open_meteo]
url = "http://127.0.0.1:$http_port/forecast"
[output]
status_file = "$work/run/report.json"
socket = "$work/run/forecastd.sock"
TOML
sleep 1
XDG_RUNTIME_DIR="$work/run" HOME="$work" ".build/$configuration/forecastd" --config "$work/forecastd.toml" \
  --log-level warning 2>"$work/forecastd.log" &
daemon=$!
pids+=("$daemon")
for _ in $(seq 100); do
  grep -qs '"status":"ok"' "$work/run/report.json" && break
  sleep 0.1
done
grep -qs '"status":"ok"' "$work/run/report.json" || { echo "no forecast in the report:"; cat "$work/run/report.json" "$work/forecastd.log"; exit 1; }
for mode in ${MODES:-read blind}; do
  python3 Benchmarks/watch_churn.py "$work/run/forecastd.sock" "$daemon" --cycles "$cycles" --mode "$mode" --concurrency "${CONCURRENCY:-16}"
done
