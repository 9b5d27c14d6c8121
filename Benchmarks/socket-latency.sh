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
source Benchmarks/peers.sh
start_peers latency "max_clients = 300"
start_daemon
sleep 3
python3 Benchmarks/socket_latency.py unix "$work/run/forecastd.sock" report --runs "$runs"
python3 Benchmarks/socket_latency.py unix "$work/run/forecastd.sock" report --runs "$runs" --watchers 200
python3 Benchmarks/socket_latency.py tcp "127.0.0.1:$gps_port" '?POLL;' --runs "$runs"
