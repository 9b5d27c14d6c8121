#!/usr/bin/env bash
# How soon the forecast comes back when the network does: the daemon runs in a network namespace of this
# script's own and reaches a local server replaying a recorded Open-Meteo answer over a veth pair whose inner
# end starts down. Once the first fetch has failed offline (its automatic retry is then 30 s away, doubling up
# to 30 minutes: the provider chain's backoff), the link is brought up and the time until the report holds a
# forecast is measured, RUNS times. The daemon waits a random 0-5 s after the network event before it judges
# again (the jitter that keeps a fleet of machines from reaching the provider in the same second); the log's
# `jitter_ms` of the first event is printed beside each latency, so the rest (the judgement and the fetch) shows too.
#
#   Benchmarks/wake-latency.sh                   the release build (built first into .build-release), 20 runs
#   BUILD=debug RUNS=5 Benchmarks/wake-latency.sh
#   BINARY=/path/to/forecastd Benchmarks/wake-latency.sh    another binary, e.g. an older commit's
#   WITHOUT_NETLINK=1 RUNS=3 Benchmarks/wake-latency.sh      the daemon as it was before it listened for the
#                                network: a seccomp filter (python3-seccomp) refuses its rtnetlink socket, so
#                                it learns of the link only when its backoff's retry comes
#
# Needs root and iproute2 (network namespaces and veth pairs).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh
runs=${RUNS:-20}
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "wake-latency.sh: needs root and iproute2 (ip)" >&2
  exit 77
fi
bench_workdir wake
bench_binaries
namespaces=()
links=()
cleanup_network() {
  for link in "${links[@]}"; do ip link del "$link" 2>/dev/null || true; done
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
}
trap 'cleanup_network; bench_cleanup' EXIT

# The recorded answer, moved to today, in $work/www (a server on 127.0.0.1 too, unused); each run serves it on
# the outer end of its own veth pair.
bench_serve_forecast >/dev/null
now() { date +%s.%N; }
wrapper=()
wait_limit=15
if [ -n "${WITHOUT_NETLINK:-}" ]; then
  # socket(AF_NETLINK = 16, ...) fails with EAFNOSUPPORT: WakeService runs on the clock's timerfd alone.
  wrapper=(/usr/bin/python3 -c 'import errno, os, sys, seccomp
f = seccomp.SyscallFilter(seccomp.ALLOW)
f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.EQ, 16))
f.load()
os.execv(sys.argv[1], sys.argv[1:])')
  wait_limit=120
fi
latencies=()
echo "binary: $BINARY"
printf '%4s  %10s  %10s  %10s\n' run latency jitter rest
for run in $(seq "$runs"); do
  tag=$(printf '%05x' $((RANDOM * 32 + RANDOM % 32)))
  ns="fd-wake-$tag" outer="fwo$tag" inner="fwi$tag" subnet="10.$((200 + RANDOM % 50)).$((RANDOM % 256))"
  ip netns add "$ns"
  namespaces+=("$ns")
  ip link add "$outer" type veth peer name "$inner" netns "$ns"
  links+=("$outer")
  ip addr add "$subnet.1/30" dev "$outer"
  ip link set "$outer" up
  ip -n "$ns" addr add "$subnet.2/30" dev "$inner"
  ip -n "$ns" link set lo up
  dir="$work/run$run"
  mkdir -p "$dir"
  bench_settings "$dir"
  sed -i "s|http://127.0.0.1:$http_port/|http://$subnet.1:$http_port/|" "$dir/forecastd.toml"
  # The replay server listens on the outer end; the inner end stays down until the measurement.
  (
    cd "$work/www" && exec python3 -m http.server "$http_port" --bind "$subnet.1" >/dev/null 2>&1
  ) &
  pids+=($!)
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/$subnet.1/$http_port") 2>/dev/null && break; sleep 0.1; done
  XDG_RUNTIME_DIR="$dir/run" XDG_STATE_HOME="$dir/state" HOME="$dir" ip netns exec "$ns" "${wrapper[@]}" "$BINARY" \
    --config "$dir/forecastd.toml" --log-level debug 2>"$dir/forecastd.log" &
  daemon=$!
  pids+=("$daemon")
  for _ in $(seq 300); do grep -qs '"kind":"offline"' "$dir/run/report.json" && break; sleep 0.05; done
  if ! grep -qs '"kind":"offline"' "$dir/run/report.json"; then
    echo "run $run: the first fetch did not fail offline" >&2
    cat "$dir/forecastd.log" >&2
    exit 1
  fi
  start=$(now)
  ip -n "$ns" link set "$inner" up
  got=
  for _ in $(seq $((wait_limit * 100))); do
    if grep -qs '"current"' "$dir/run/report.json"; then got=$(now); break; fi
    sleep 0.01
  done
  if [ -z "$got" ]; then
    echo "run $run: no forecast within $wait_limit s of the link coming up" >&2
    cat "$dir/forecastd.log" >&2
    exit 1
  fi
  latency=$(echo "$got - $start" | bc -l)
  jitter=$(grep -o 'jitter_ms=[0-9]*' "$dir/forecastd.log" | head -n 1 | cut -d= -f2 || true)
  jitter=$(echo "${jitter:-0} / 1000" | bc -l)
  printf '%4d  %9.2fs  %9.2fs  %9.2fs\n' "$run" "$latency" "$jitter" "$(echo "$latency - $jitter" | bc -l)"
  latencies+=("$latency")
  kill "$daemon" 2>/dev/null || true
  wait "$daemon" 2>/dev/null || true
  ip link del "$outer" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
done
printf '%s\n' "${latencies[@]}" | sort -n | awk '
  { v[NR] = $1 }
  END { printf "latency over %d runs: min %.2f s, median %.2f s, max %.2f s\n", NR, v[1], v[int((NR + 1) / 2)], v[NR] }'
