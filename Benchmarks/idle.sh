#!/usr/bin/env bash
# Wakeups of an idle daemon: pinned, no readers, no gpsd, a forecast fetched at start from a local
# server replaying the recorded Samara answer. Counts the context switches of all its threads
# (voluntary + involuntary, /proc/PID/task/*/status) over a window after settling, and its CPU time.
#
#   Benchmarks/idle.sh                         release build (built first), settle 10 s, window 60 s
#   BUILD=debug WINDOW=60 Benchmarks/idle.sh   the debug build in .build/debug
#   BINARY=/path/to/forecastd BUILD=debug Benchmarks/idle.sh   another binary, for comparison
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-release}
settle=${SETTLE:-10}
window=${WINDOW:-60}
if [ -z "${BINARY:-}" ]; then
  [ "$build" = release ] && swift build -c release --product forecastd >/dev/null
  BINARY=.build/$build/forecastd
fi

work=$(mktemp -d /tmp/fd-idle.XXXXXX)
pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap stop EXIT
port=$((26000 + RANDOM % 5000))
mkdir -p "$work/www" "$work/run" "$work/state"
# The recorded days moved to Samara's today (UTC+4), as the tests do: an answer a day old is refused.
python3 - "$work/www/forecast" <<'PY'
import datetime, sys
text = open("Tests/Fixtures/open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json").read()
today = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=4)).date()
first = datetime.date(2026, 9, 15)
for offset in reversed(range(16)):
    text = text.replace(str(first + datetime.timedelta(days=offset)), str(today + datetime.timedelta(days=offset)))
open(sys.argv[1], "w").write(text)
PY
(cd "$work/www" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
pids+=($!)
cat >"$work/forecastd.toml" <<TOML
[location]
mode = "pinned"
static_file = ""
[location.pin]
latitude = 53.2
longitude = 50.15
[location.ip]
enabled = false
[location.gpsd]
enabled = false
[providers]
order = ["open-meteo"]
[providers.open_meteo]
url = "http://127.0.0.1:$port/forecast"
[output]
status_file = "$work/run/report.json"
socket = "$work/run/forecastd.sock"
TOML
sleep 1
XDG_RUNTIME_DIR="$work/run" XDG_STATE_HOME="$work/state" HOME="$work" "$BINARY" --config "$work/forecastd.toml" \
  --log-level warning 2>"$work/forecastd.log" &
daemon=$!
pids+=("$daemon")

# Per thread, so a thread that ends in the window takes none of the others' count with it.
snapshot() {
  for task in /proc/"$daemon"/task/*; do
    echo "${task##*/} $(awk '/ctxt_switches/ {n += $2} END {print n}' "$task/status" 2>/dev/null || echo 0)"
  done | sort
}
ticks() { awk '{print $14 + $15}' "/proc/$daemon/stat"; }
sleep "$settle"
grep -q '"current"' "$work/run/report.json" || { echo "no forecast in the report:"; cat "$work/forecastd.log"; exit 1; }
snapshot >"$work/before"
cpu_before=$(ticks)
sleep "$window"
snapshot >"$work/after"
cpu_after=$(ticks)
# Threads alive at both ends count their difference; threads started in the window count whole.
switched=$(join -a 2 -e 0 -o 2.2,1.2 "$work/before" "$work/after" | awk '{n += $1 - $2} END {print n}')
threads=$(ls /proc/"$daemon"/task | wc -l)
awk -v s="$switched" -v w="$window" -v c=$((cpu_after - cpu_before)) -v hz="$(getconf CLK_TCK)" -v t="$threads" \
  -v b="$BINARY" 'BEGIN {
  printf "%s, pinned, no readers, %d threads: %d wakeups in %d s = %.2f a second; CPU %.2f s = %.3f %% of a core\n",
    b, t, s, w, s / w, c / hz, 100 * c / hz / w
}'
