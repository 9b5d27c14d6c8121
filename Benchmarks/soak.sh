#!/usr/bin/env bash
# Memory over many refresh cycles: does the daemon give back what a fetch takes? Pinned, no gpsd, a local
# HTTP server replaying a recorded Open-Meteo answer (moved to today). Each cycle is a user's `refresh` over
# the socket, answered when the fetch is done: the same path a timed refresh takes (the chain asks the
# provider, the answer is decoded, the report published, the status file and the saved state written),
# started by a request instead of the clock so that 10,000 cycles take minutes rather than months. Prints
# RssAnon, Pss and RSS (/proc/PID/status, /proc/PID/smaps_rollup) at the start and every STEP cycles.
#
#   Benchmarks/soak.sh                            10,000 cycles, release build (built first into .build-release)
#   CYCLES=2000 STEP=500 BUILD=debug Benchmarks/soak.sh
#   BINARY=/path/to/forecastd Benchmarks/soak.sh  another daemon binary
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh
cycles=${CYCLES:-10000}
step=${STEP:-1000}
bench_workdir soak
bench_binaries
bench_serve_forecast
bench_settings "$work"
bench_start_daemon "$work"
bench_wait_forecast "$work"
sleep 2
echo "binary: $BINARY"
python3 - "$work/run/forecastd.sock" "$daemon" "$cycles" "$step" <<'PY'
import json, socket, sys, time

path, pid, cycles, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def field(file, name):
    for line in open(file):
        if line.startswith(name):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no {name} in {file}")

def measure(label):
    anon = field(f"/proc/{pid}/status", "RssAnon:")
    rss = field(f"/proc/{pid}/status", "VmRSS:")
    pss = field(f"/proc/{pid}/smaps_rollup", "Pss:")
    print(f"{label:<24} RssAnon {anon:6.1f} MB   Pss {pss:6.1f} MB   RSS {rss:6.1f} MB", flush=True)
    return anon

connection = socket.socket(socket.AF_UNIX)
connection.connect(path)
reader = connection.makefile("r")
reader.readline()  # the greeting
start = measure("start")
began = time.monotonic()
failed = 0
for cycle in range(1, cycles + 1):
    connection.sendall(b"refresh\n")
    while True:
        line = reader.readline()
        if not line:
            raise SystemExit(f"the daemon closed the connection at cycle {cycle}")
        answer = json.loads(line)
        if answer.get("class") in ("REFRESH", "ERROR"):
            break
    if not answer.get("ok", False):
        failed += 1
    if cycle % step == 0:
        end = measure(f"after {cycle} cycles")
elapsed = time.monotonic() - began
print(f"{cycles} cycles in {elapsed:.0f} s ({cycles / elapsed:.1f} a second), {failed} refused or failed; "
      f"RssAnon grew {end - start:+.1f} MB")
PY
