#!/usr/bin/env bash
# The daemon's memory as the kernel counts it: RssAnon, RSS (/proc/PID/status) and Pss
# (/proc/PID/smaps_rollup), idle after start-up and its first fetch, then after each of a few refreshes.
# Pinned, no gpsd, a local HTTP server replaying a recorded Open-Meteo answer (moved to today).
#
#   Benchmarks/memory.sh                      the release build (built first)
#   BUILD=debug Benchmarks/memory.sh          the debug build as it is in .build/debug
#   BINARY=/path/to/forecastd Benchmarks/memory.sh    another binary, e.g. an older commit's
#   SETTLE=10 REFRESHES=5 Benchmarks/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-release}
settle=${SETTLE:-10}
refreshes=${REFRESHES:-5}
if [ -z "${BINARY:-}" ]; then
  [ "$build" = release ] && swift build -c release --product forecastd --product forecastctl >/dev/null
  BINARY=.build/$build/forecastd
fi
ctl=.build/$build/forecastctl
[ -x "$ctl" ] || ctl=.build/debug/forecastctl

work=$(mktemp -d /tmp/fd-memory.XXXXXX)
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

measure() {
  local anon rss pss
  anon=$(awk '/^RssAnon:/ {print $2}' "/proc/$daemon/status")
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$daemon/status")
  pss=$(awk '/^Pss:/ {print $2}' "/proc/$daemon/smaps_rollup")
  printf '%-28s RssAnon %6.1f MB   Pss %6.1f MB   RSS %6.1f MB\n' "$1" "$(echo "$anon/1024" | bc -l)" \
    "$(echo "$pss/1024" | bc -l)" "$(echo "$rss/1024" | bc -l)"
}
sleep "$settle"
grep -q '"current"' "$work/run/report.json" || { echo "no forecast in the report:"; cat "$work/forecastd.log"; exit 1; }
echo "binary: $BINARY ($(stat -c %s "$BINARY") bytes)"
measure "idle, after the first fetch"
for i in $(seq 1 "$refreshes"); do
  # A user's refresh is allowed every 10 s.
  "$ctl" refresh --socket "$work/run/forecastd.sock" >/dev/null
  sleep 11
  measure "after refresh $i"
done
