# Sourced by the benchmark scripts: starts what a measured forecastd talks to and writes its settings.
#
#   start_peers NAME [EXTRA_OUTPUT_SETTINGS]
#
# Sets $work (a scratch directory, removed at exit), $gps_port, $http_port and $pids, then starts a local
# HTTP server replaying a recorded Open-Meteo response and gpsd fed by gpsfake (gpslim236.log, about one fix
# a second), and writes $work/forecastd.toml pointing the daemon at them, with IP geolocation and the static
# file off so that nothing outside the machine is asked. EXTRA_OUTPUT_SETTINGS go into its [output] table.
# `start_daemon` then runs the release build on it in the background and sets $daemon ($FORECASTD_BIN, when
# set, names another build to run, such as the static one of scripts/release).

. Benchmarks/lib.sh

start_peers() {
  work=$(mktemp -d "/tmp/fd-$1.XXXXXX")
  gps_port=$((21000 + RANDOM % 5000))
  http_port=$((26000 + RANDOM % 5000))
  pids=()
  trap stop_peers EXIT
  mkdir -p "$work/www" "$work/run" "$work/tmp"
  cp Tests/Fixtures/open-meteo/forecast-bromsgrove-gb-current-hourly-daily-fahrenheit-kmh-timezone-auto.json "$work/www/forecast"
  (cd "$work/www" && exec /usr/bin/python3 -m http.server "$http_port" --bind 127.0.0.1 >/dev/null 2>&1) &
  pids+=($!)
  # About one fix a second: the log has about five sentences per epoch.
  bench_start_gpsfake Tests/Fixtures/nmea/gpslim236.log 0.2
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
${2:-}
TOML
  sleep 2
}

start_daemon() {
  XDG_RUNTIME_DIR="$work/run" HOME="$work" "${FORECASTD_BIN:-.build/release/forecastd}" --config "$work/forecastd.toml" --log-level warning \
    2>"$work/forecastd.log" &
  daemon=$!
  pids+=("$daemon")
}

stop_peers() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  pkill -TERM -f "gpsd.*-P $gps_port" 2>/dev/null || true
  pkill -TERM -f "gpsd .*:$gps_port" 2>/dev/null || true
  sleep 0.5
  rm -rf "$work"
}
