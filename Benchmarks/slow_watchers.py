#!/usr/bin/env python3
"""Watchers that never read: connects WATCHERS clients to forecastd's socket, each asks `watch` and then
reads nothing at all; makes CHANGES changes of the report (the units, metric and imperial in turn, through
the socket's `units` request, each answered once applied); then closes every watcher. Prints the daemon's
memory (RssAnon and RSS from /proc/PID/status, Pss from smaps_rollup) and `status`'s clients and watchers
before, while they are connected, and after they have all closed. Used by Benchmarks/slow-watchers.sh.

    slow_watchers.py SOCKET PID [--watchers 500] [--changes 100] [--format json]
"""
import argparse
import json
import socket
import time

from watch_churn import ask, memory


def show(label, figures, status):
    print(
        f"{label:<34} RssAnon {figures['RssAnon'] / 1024:7.1f} MB   Pss {figures['Pss'] / 1024:7.1f} MB   "
        f"RSS {figures['VmRSS'] / 1024:7.1f} MB   clients {status['clients']}, watchers {status['watchers']}",
        flush=True,
    )


def status(path):
    return json.loads(ask(path, "status"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("socket")
    parser.add_argument("pid", type=int)
    parser.add_argument("--watchers", type=int, default=500)
    parser.add_argument("--changes", type=int, default=100)
    parser.add_argument("--format", default="json")
    parser.add_argument(
        "--request", help="what each client sends instead of watch (e.g. status: a connection that asked once and "
        "stays, for the cost of a connection itself)")
    args = parser.parse_args()
    request = args.request or f"watch format={args.format}"

    time.sleep(1)
    before = memory(args.pid)
    show("before", before, status(args.socket))
    watchers = []
    for _ in range(args.watchers):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(args.socket)
        sock.sendall(f"{request}\n".encode())
        watchers.append(sock)
    # Every watcher is counted before the changes start (none reads, so none can tell by itself).
    deadline = time.monotonic() + 60
    counted = "clients" if args.request else "watchers"
    while status(args.socket)[counted] < args.watchers + (1 if args.request else 0) and time.monotonic() < deadline:
        time.sleep(0.2)
    show(f"{args.watchers} watchers connected", memory(args.pid), status(args.socket))
    started = time.monotonic()
    for change in range(args.changes):
        units = "imperial" if change % 2 == 0 else "metric"
        answer = json.loads(ask(args.socket, f"units {units}"))
        if not answer.get("ok"):
            raise SystemExit(f"units {units} was refused: {answer}")
    elapsed = time.monotonic() - started
    time.sleep(2)
    during = memory(args.pid)
    show(f"after {args.changes} changes", during, status(args.socket))
    for sock in watchers:
        sock.close()
    deadline = time.monotonic() + 30
    while status(args.socket)["clients"] > 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2)
    after = memory(args.pid)
    show("all closed, 2 s later", after, status(args.socket))
    print(
        f"{args.watchers} never-reading watchers, {args.changes} changes in {elapsed:.1f} s: RssAnon "
        f"{(during['RssAnon'] - before['RssAnon']) / 1024:+.1f} MB while connected "
        f"({(during['RssAnon'] - before['RssAnon']) / args.watchers:.0f} KB a watcher), "
        f"{(after['RssAnon'] - before['RssAnon']) / 1024:+.1f} MB after all closed"
    )


if __name__ == "__main__":
    main()
