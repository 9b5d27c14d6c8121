#!/usr/bin/env bash
# The socket's speed against gpsd's own, measured the same way (Benchmarks/socket_latency.py):
# forecastd's `report` round trip with no watchers and with 200 watchers attached, and gpsd's
# `?POLL;` round trip (gpsd fed by gpsfake). Release build; needs gpsd, gpsd-clients, python3-gps.
#
#   Benchmarks/socket-latency.sh            2000 runs each
#   RUNS=5000 Benchmarks/socket-latency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-2000}
swift build -c release --product forecastd >/dev/null 2>&1
work=$(mktemp -d /tmp/fd-latency.XXXXXX)
gps_port=$((21000 + RANDOM % 5000))
http_port=$((26000 + RANDOM % 5000))
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  pkill -TERM -f "gpsd.*$gps_port" 2>/dev/null || true
  sleep 0.5
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www" "$work/run" "$work/tmp"
cp Tests/Fixtures/open-meteo/forecast-bromsgrove-gb-current-hourly-daily-fahrenheit-kmh-timezone-auto.json "$work/www/forecast"
(cd "$work/www" && exec /usr/bin/python3 -m http.server "$http_port" --bind 127.0.0.1 >/dev/null 2>&1) &
pids+=($!)
TMPDIR="$work/tmp" setsid /usr/bin/python3 /usr/bin/gpsfake -q -n -c 0.2 -P "$gps_port" Tests/Fixtures/nmea/gpslim236.log >/dev/null 2>&1 &
pids+=($!)
cat >"$work/forecastd.toml" <<TOML
[location]
static_file = ""
[location.ip]
enabled = false
[location.gpsd]
port = $gps_port
[providers]
order = ["open-meteo"]
[providers.open_meteo]
url = "http://127.0.0.1:$http_port/forecast"
[output]
status_file = "$work/run/report.json"
socket = "$work/run/forecastd.sock"
max_clients = 300
TOML
sleep 2
XDG_RUNTIME_DIR="$work/run" HOME="$work" .build/release/forecastd --config "$work/forecastd.toml" --log-level warning 2>"$work/forecastd.log" &
pids+=($!)
sleep 3
python3 Benchmarks/socket_latency.py unix "$work/run/forecastd.sock" report --runs "$runs"
python3 Benchmarks/socket_latency.py unix "$work/run/forecastd.sock" report --runs "$runs" --watchers 200
python3 Benchmarks/socket_latency.py tcp "127.0.0.1:$gps_port" '?POLL;' --runs "$runs"
