#!/usr/bin/env bash
# Wakeups of an idle daemon, beside gpsd's own, in two cases:
#   pinned   pinned, no readers, no gpsd client; a forecast fetched at start from a local server replaying the
#            recorded Samara answer. gpsd's figure: a gpsd with no device and no client, started the same way.
#   gpsd     location from gpsd, fed by gpsfake replaying Tests/Fixtures/nmea/gpslim236.log at about one fix
#            a second; gpsd's figure: that gpsd, serving forecastd.
#   moving   the same with a receiver driving at 72 km/h (Benchmarks/moving-track.py, synthetic): every fix
#            moves more than the daemon's hand-on distance. Not in the default CASES.
# A wakeup is a context switch of any thread (voluntary + involuntary, /proc/PID/task/*/status), counted per
# thread over a window after settling; CPU is utime + stime from /proc/PID/stat over the same window.
# Warnings and air quality are off (they would ask services outside the machine; each is one timer an hour).
#
#   Benchmarks/idle.sh                          release build (built first into .build-release), both cases,
#                                               settle 10 s, window 300 s
#   WINDOW=60 CASES=pinned Benchmarks/idle.sh   one case, a shorter window
#   BUILD=debug Benchmarks/idle.sh              the debug build in .build/debug
#   BINARY=/path/to/forecastd Benchmarks/idle.sh   another binary, for comparison
#   THREADS=1 Benchmarks/idle.sh                each thread's wakeups too, by name
# (Benchmarks/lib.sh: the binaries, the replay server, the settings, the daemon.)
#
# Needs gpsd, gpsd-clients and python3-gps (scripts/deps --test).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh
settle=${SETTLE:-10}
window=${WINDOW:-300}
cases=${CASES:-pinned gpsd}
bench_workdir idle
bench_binaries
bench_serve_forecast

# Per thread, so a thread that ends in the window takes none of the others' count with it.
snapshot() {
  for task in /proc/"$1"/task/*; do
    echo "${task##*/} $(awk '/ctxt_switches/ {n += $2} END {print n}' "$task/status" 2>/dev/null || echo 0)"
  done | sort
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# measure NAME PID...: one window over all the processes at once; prints one line per process.
measure() {
  local name=$1 pid
  shift
  for pid in "$@"; do
    snapshot "$pid" >"$work/before.$pid"
    ticks "$pid" >"$work/cpu-before.$pid"
  done
  sleep "$window"
  for pid in "$@"; do
    snapshot "$pid" >"$work/after.$pid"
    # Threads alive at both ends count their difference; threads started in the window count whole.
    local switched cpu threads label
    switched=$(join -a 2 -e 0 -o 2.2,1.2 "$work/before.$pid" "$work/after.$pid" | awk '{n += $1 - $2} END {print n}')
    cpu=$(($(ticks "$pid") - $(cat "$work/cpu-before.$pid")))
    threads=$(ls /proc/"$pid"/task | wc -l)
    label=$([ "$pid" = "$daemon" ] && echo "forecastd ($BINARY)" || echo "gpsd $(gpsd -V 2>&1 | awk '{print $2}')")
    awk -v s="$switched" -v w="$window" -v c="$cpu" -v hz="$(getconf CLK_TCK)" -v t="$threads" -v l="$label" \
      -v n="$name" -v f="${fixes_per_second:-}" 'BEGIN {
      per_fix = f > 0 ? sprintf(", %.2f per fix (%.2f fixes a second)", s / w / f, f) : ""
      printf "%-7s %-45s %2d threads: %6d wakeups in %d s = %6.3f a second%s; CPU %.2f s = %.3f %% of a core\n",
        n, l, t, s, w, s / w, per_fix, c / hz, 100 * c / hz / w
    }'
    # THREADS=1: each thread's share, by name, to tell who wakes.
    if [ -n "${THREADS:-}" ]; then
      join -a 2 -e 0 -o 0,2.2,1.2 "$work/before.$pid" "$work/after.$pid" | while read -r tid after before; do
        printf '          thread %-7s %-16s %6d wakeups\n' "$tid" "$(cat "/proc/$pid/task/$tid/comm" 2>/dev/null || echo ended)" \
          $((after - before))
      done
    fi
  done
}

start_daemon() { # CASE MODE
  BENCH_MODE=$2 BENCH_GPSD=$([ "$2" = auto ] && echo true || echo false) BENCH_GPSD_PORT=$gps_port \
    bench_settings "$work/$1"
  bench_start_daemon "$work/$1"
}
stop_daemon() { kill "$daemon"; wait "$daemon" 2>/dev/null || true; }

for case in $cases; do
  gps_port=$((21000 + RANDOM % 5000))
  fixes_per_second=
  gpsfake_pid=
  case $case in
  pinned)
    # gpsd with no device and no client: what gpsd costs when nothing happens.
    gpsd -N -S "$gps_port" -F "$work/gpsd-$gps_port.sock" >/dev/null 2>&1 &
    gpsd_pid=$!
    pids+=("$gpsd_pid")
    start_daemon pinned pinned
    ;;
  gpsd | moving)
    # About one fix a second: the recorded log has about five sentences per epoch, the synthetic one four.
    log=Tests/Fixtures/nmea/gpslim236.log cycle=0.2
    if [ "$case" = moving ]; then
      log="$work/moving.log" cycle=0.25
      Benchmarks/moving-track.py >"$log"
    fi
    bench_start_gpsfake "$log" "$cycle"
    start_daemon "$case" auto
    ;;
  *) echo "unknown case $case (pinned, gpsd, moving)"; exit 2 ;;
  esac
  sleep "$settle"
  bench_wait_forecast "$work/$case"
  if [ "$case" != pinned ]; then
    grep -q '"source":"gpsd"' "$work/$case/run/report.json" \
      || { echo "no gpsd position in the report:"; cat "$work/$case/run/report.json"; exit 1; }
    # The fix rate, counted before the window by a client of its own (so it is not one during the window).
    fixes=$(timeout 20 gpspipe -w "127.0.0.1:$gps_port" 2>/dev/null | grep -c '"class":"TPV".*"mode":[23]' || true)
    fixes_per_second=$(awk -v n="$fixes" 'BEGIN {printf "%.2f", n / 20}')
  fi
  measure "$case" "$daemon" "$gpsd_pid"
  stop_daemon
  kill "$gpsd_pid" ${gpsfake_pid:-} 2>/dev/null || true
  sleep 1
done
