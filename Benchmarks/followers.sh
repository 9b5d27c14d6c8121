#!/usr/bin/env bash
# One publishing forecastd and FOLLOWERS followers (`[mqtt] follow`) on one Mosquitto broker (issue 27): how long
# a change at the publisher takes to reach every follower's status file, the provider requests (the publisher's,
# and the followers', which must be none), and the followers' memory.
#
# Each round renames the publisher's pin (an edit of its settings file, applied live: the report changes, and the
# publisher also fetches again for the changed pin) and measures, for each follower, the time from the rename until
# its status file names the new place (and the same for the publisher's own status file: the part of the time that
# is the publisher's reload and report). Half the followers are imperial: each renders its own report.
#
#   Benchmarks/followers.sh                          the release build (built first into .build-release), 50
#                                                    followers, 10 rounds
#   BUILD=debug FOLLOWERS=10 ROUNDS=3 Benchmarks/followers.sh
#
# Needs mosquitto (Debian's `mosquitto`). The harness checks the status files' mtimes every 2 ms (it polls; the
# daemons do not).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh
followers=${FOLLOWERS:-50}
rounds=${ROUNDS:-10}
[ -x /usr/sbin/mosquitto ] || { echo "followers.sh: needs mosquitto" >&2; exit 77; }
bench_workdir followers
bench_binaries
# The recorded answer in $work/www/forecast (lib.sh's own server is not used: the two below log each request).
bench_serve_forecast >/dev/null

# serve_logged NAME: a server of $work/www on a free port whose requests go to $work/NAME-http.log; sets `port`.
serve_logged() {
  port=$((31000 + RANDOM % 4000))
  (cd "$work/www" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>"$work/$1-http.log") &
  pids+=($!)
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return; sleep 0.1; done
  echo "the $1 server did not start" >&2
  return 1
}
serve_logged publisher
publisher_port=$port
serve_logged followers
followers_port=$port

mqtt_port=$((36000 + RANDOM % 4000))
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$mqtt_port" >"$work/mosquitto.conf"
/usr/sbin/mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$mqtt_port") 2>/dev/null && break; sleep 0.1; done

mqtt=("[mqtt]" "enabled = true" "url = \"mqtt://127.0.0.1:$mqtt_port\"")
http_port=$publisher_port
BENCH_PIN="53.2 50.15 Round 0" bench_settings "$work/pub" "${mqtt[@]}" 'topic = "forecastd/bench"'
bench_start_daemon "$work/pub"
publisher=$daemon
bench_wait_forecast "$work/pub" 30

http_port=$followers_port
follower_pids=()
for i in $(seq "$followers"); do
  extra=("${mqtt[@]}" "client_id = \"bench-follower-$i\"" 'follow = "forecastd/bench"')
  [ $((i % 2)) -eq 1 ] && extra+=("[units]" 'preset = "imperial"')
  bench_settings "$work/f$i" "${extra[@]}"
  bench_start_daemon "$work/f$i"
  follower_pids+=("$daemon")
done
for i in $(seq "$followers"); do bench_wait_forecast "$work/f$i" 120; done
echo "binary: $BINARY"
echo "followers: $followers, rounds: $rounds"

python3 - "$work/pub/forecastd.toml" "$rounds" "$work/pub/run/report.json" "$work"/f*/run/report.json <<'PY'
import os, re, statistics, sys, time
settings, rounds, own, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
every, publisher = [], []
print(f"{'round':>5}  {'publisher ms':>12}  {'p50 ms':>8}  {'p99 ms':>8}  {'max ms':>8}  missed")
for k in range(1, rounds + 1):
    name = f"Round {k}"
    text = re.sub(r'name = "Round \d+"', f'name = "{name}"', open(settings).read())
    with open(settings + ".new", "w") as out:
        out.write(text)
    seen = {}
    start = time.monotonic()
    os.rename(settings + ".new", settings)
    pending, latencies, own_latency = set(files) | {own}, [], float("nan")
    while pending and time.monotonic() - start < 60:
        for path in list(pending):
            try:
                mtime = os.stat(path).st_mtime_ns
            except FileNotFoundError:
                continue
            if seen.get(path) == mtime:
                continue
            seen[path] = mtime
            with open(path) as report:
                if f'"{name}"' in report.read():
                    if path == own:
                        own_latency = (time.monotonic() - start) * 1000
                    else:
                        latencies.append((time.monotonic() - start) * 1000)
                    pending.discard(path)
        time.sleep(0.002)
    latencies.sort()
    every += latencies
    publisher.append(own_latency)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else float("nan")
    print(f"{k:>5}  {own_latency:12.1f}  {statistics.median(latencies):8.1f}  {p99:8.1f}  {latencies[-1]:8.1f}  "
          f"{len(pending)}")
    time.sleep(2)
every.sort()
print(f"the publisher's own status file: median {statistics.median(publisher):.1f} ms")
print(f"all rounds, followers: p50 {statistics.median(every):.1f} ms, p99 {every[int(len(every) * 0.99)]:.1f} ms, "
      f"max {every[-1]:.1f} ms over {len(every)} updates")
PY

requests() { grep -c '"GET ' "$work/$1-http.log" || true; }
echo "provider requests: publisher $(requests publisher) (the first, and one per round for its renamed pin), followers $(requests followers)"
python3 - "${follower_pids[@]}" <<'PY'
import statistics, sys
anon, pss = [], []
for pid in sys.argv[1:]:
    status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
    anon.append(int(status["RssAnon"].split()[0]))
    rollup = dict(line.split(":", 1) for line in open(f"/proc/{pid}/smaps_rollup").readlines()[1:])
    pss.append(int(rollup["Pss"].split()[0]))
print(f"followers' memory: RssAnon median {statistics.median(anon) / 1024:.1f} MiB, "
      f"Pss median {statistics.median(pss) / 1024:.1f} MiB, Pss total {sum(pss) / 1024:.0f} MiB")
PY
for pid in "${follower_pids[@]}" "$publisher"; do kill -0 "$pid" 2>/dev/null || { echo "a daemon died (pid $pid)" >&2; exit 1; }; done
