# Start-up shared by the benchmark scripts that run the daemon (idle.sh, memory.sh, soak.sh, watch-churn.sh; peers.sh
# takes bench_start_gpsfake): the binaries, a scratch directory cleaned on exit, a local HTTP server replaying a
# recorded Open-Meteo answer, gpsd fed by gpsfake, a settings file, the daemon. Sourced, from the repository's root.
#
#   BUILD=release (default)   build forecastd and forecastctl into .build-release first, and use them
#   BUILD=debug               use .build/debug as it is
#   BINARY=/path/to/forecastd another daemon binary (an older commit's), forecastctl from the build above

# bench_binaries: sets BINARY, and CTL (forecastctl: forecastd started under that name, as the release
# installs it). Call after bench_workdir.
bench_binaries() {
  local build=${BUILD:-release} built
  if [ "$build" = release ]; then
    built=.build-release/release
    [ -n "${BINARY:-}" ] || swift build -c release --scratch-path .build-release --product forecastd >/dev/null
  else
    built=.build/$build
  fi
  BINARY=${BINARY:-$built/forecastd}
  CTL="$work/bin/forecastctl"
  mkdir -p "$work/bin"
  if [ -x "$built/forecastd" ]; then ln -sf "$(realpath "$built/forecastd")" "$CTL"; else ln -sf "$(realpath "$BINARY")" "$CTL"; fi
}

# bench_workdir NAME: a scratch directory in $work; every pid added to `pids` is killed on exit.
bench_workdir() {
  work=$(mktemp -d "/tmp/fd-$1.XXXXXX")
  pids=()
  run_dirs=()
  trap bench_cleanup EXIT
}
bench_cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work" "${run_dirs[@]}"
}

# bench_serve_forecast [FIXTURE [RECORDED-DAY UTC-OFFSET-HOURS]]: serves the recorded answer at
# http://127.0.0.1:$http_port/forecast, its days moved to the place's today as the tests do (an answer a day
# old is refused); a FIXTURE without a day is served as it is. Default: Samara (UTC+4), recorded on 2026-09-15.
bench_serve_forecast() {
  local fixture=${1:-Tests/Fixtures/open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json}
  local day=${2:-} offset=${3:-0}
  [ $# -eq 0 ] && day=2026-09-15 offset=4
  http_port=$((26000 + RANDOM % 5000))
  mkdir -p "$work/www"
  python3 - "$fixture" "$day" "$offset" "$work/www/forecast" <<'PY'
import datetime, sys
fixture, day, offset, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(fixture).read()
today = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=offset)).date()
first = datetime.date.fromisoformat(day) if day else today
for shift in reversed(range(16 if day else 0)):
    text = text.replace(str(first + datetime.timedelta(days=shift)), str(today + datetime.timedelta(days=shift)))
open(out, "w").write(text)
PY
  (cd "$work/www" && exec python3 -m http.server "$http_port" --bind 127.0.0.1 >/dev/null 2>&1) &
  pids+=($!)
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$http_port") 2>/dev/null && return; sleep 0.1; done
  echo "the replay server did not start" >&2
  return 1
}

# bench_start_gpsfake LOG CYCLE: gpsd on 127.0.0.1:$gps_port fed by gpsfake replaying LOG (CYCLE seconds a
# sentence, looping; gpsd's control socket in $work/tmp); sets gpsfake_pid and gpsd_pid, adds both to `pids`.
# Returns once gpsd lists the fake receiver: gpsfake adds it through gpsd's control socket as soon as that file
# exists, and when gpsd has not yet called listen(2) the add fails without a word and gpsd runs with no device
# (Sources/TestSupport/GPSFake.swift, which the tests use, says more). gpsfake is started again then, 3 tries.
bench_start_gpsfake() {
  local log=$1 cycle=$2 attempt
  mkdir -p "$work/tmp"
  for attempt in 1 2 3; do
    TMPDIR="$work/tmp" setsid /usr/bin/python3 /usr/bin/gpsfake -q -n -c "$cycle" -P "$gps_port" "$log" \
      >"$work/gpsfake.log" 2>&1 &
    gpsfake_pid=$!
    if /usr/bin/python3 - "$gps_port" <<'PY'
import json, socket, sys, time
port = int(sys.argv[1])
deadline = time.monotonic() + 18  # up to 10 s for gpsd to listen, then about 1 s (8 allowed) for the device
while time.monotonic() < deadline:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"?DEVICES;\n")
            data = b""
            while b'"DEVICES"' not in data or not data.endswith(b"\n"):
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        for line in data.splitlines():
            answer = json.loads(line)
            if answer.get("class") == "DEVICES" and answer.get("devices"):
                sys.exit(0)
    except (OSError, ValueError):
        pass
    time.sleep(0.1)
sys.exit(1)
PY
    then
      gpsd_pid=$(pgrep -P "$gpsfake_pid" gpsd | head -1)
      pids+=("$gpsfake_pid" "$gpsd_pid")
      return 0
    fi
    # SIGTERM to gpsd, not to gpsfake (whose own handler can spin); gpsfake then exits by itself, or is killed.
    pkill -TERM -f "gpsd .*-S $gps_port " 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$gpsfake_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$gpsfake_pid" 2>/dev/null || true
    wait "$gpsfake_pid" 2>/dev/null || true
    echo "gpsd listed no device (try $attempt of 3); starting gpsfake again" >&2
  done
  echo "gpsfake could not give gpsd its receiver; it said:" >&2
  cat "$work/gpsfake.log" >&2
  return 1
}

# bench_settings DIR [TOML...]: DIR/forecastd.toml (bench_settings_toml), the status file and socket in DIR/run
# (a link to a directory on /dev/shm when that is a tmpfs).
bench_settings() {
  local dir=$1
  shift
  mkdir -p "$dir/state"
  # The status file and socket on a tmpfs, as with the daemon's defaults ($XDG_RUNTIME_DIR, /run/forecastd):
  # on a disk file system each status-file write would wait for its two fsyncs, which users do not pay.
  if [ ! -e "$dir/run" ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
    local shm
    shm=$(mktemp -d /dev/shm/fd-run.XXXXXX)
    run_dirs+=("$shm")
    ln -s "$shm" "$dir/run"
  fi
  mkdir -p "$dir/run"
  bench_settings_toml "$dir/run" "$@" >"$dir/forecastd.toml"
}

# bench_settings_toml RUN [TOML...]: prints settings pinned to Samara (53.2, 50.15; BENCH_PIN="LAT LON NAME"
# for another place), the forecast from the replay server, no IP geolocation, gpsd, warnings or air quality
# (each would ask a service outside the machine); the status file and socket in RUN. BENCH_MODE (pinned, auto),
# BENCH_GPSD (true, false) and BENCH_GPSD_PORT change the location; extra lines (tables not written here) are
# appended. Also used by config/bars/check-snippets.sh, so the bars are checked on the settings measured here.
bench_settings_toml() {
  local run=$1
  shift
  cat <<TOML
[location]
mode = "${BENCH_MODE:-pinned}"
static_file = ""
[location.pin]
latitude = $(set -- ${BENCH_PIN:-53.2 50.15}; echo "$1")
longitude = $(set -- ${BENCH_PIN:-53.2 50.15}; echo "$2")
$(set -- ${BENCH_PIN:-}; [ $# -ge 3 ] && shift 2 && echo "name = \"$*\"")
[location.ip]
enabled = false
[location.gpsd]
enabled = ${BENCH_GPSD:-false}
port = ${BENCH_GPSD_PORT:-2947}
[providers]
order = ["open-meteo"]
[providers.open_meteo]
url = "http://127.0.0.1:$http_port/forecast"
[warnings]
enabled = false
[air]
enabled = false
[output]
status_file = "$run/report.json"
socket = "$run/forecastd.sock"
TOML
  printf '%s\n' "$@"
}

# bench_start_daemon DIR: runs $BINARY on DIR/forecastd.toml (log in DIR/forecastd.log); sets `daemon`.
bench_start_daemon() {
  local dir=$1
  XDG_RUNTIME_DIR="$dir/run" XDG_STATE_HOME="$dir/state" HOME="$dir" "$BINARY" \
    --config "$dir/forecastd.toml" --log-level warning 2>"$dir/forecastd.log" &
  daemon=$!
  pids+=("$daemon")
}

# bench_wait_forecast DIR [SECONDS]: waits until the report holds a forecast; fails with the log otherwise.
bench_wait_forecast() {
  local dir=$1 seconds=${2:-10}
  for _ in $(seq $((seconds * 10))); do
    grep -qs '"current"' "$dir/run/report.json" && return 0
    sleep 0.1
  done
  echo "no forecast in the report:" >&2
  cat "$dir/run/report.json" "$dir/forecastd.log" >&2 2>/dev/null || true
  return 1
}
