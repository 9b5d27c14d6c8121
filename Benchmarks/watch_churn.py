#!/usr/bin/env python3
"""Connects to forecastd's socket, asks `watch`, reads the first report and closes, over and over;
prints the daemon's memory (RssAnon and RSS from /proc/PID/status, Pss from smaps_rollup) and its
`status` answer before and after. Used by Benchmarks/watch-churn.sh.

    watch_churn.py SOCKET PID [--cycles 20000] [--concurrency 16] [--mode read|blind]
"""
import argparse
import json
import socket
import threading
import time


def memory(pid):
    figures = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("RssAnon", "VmRSS"):
                figures[key] = int(value.split()[0])
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            key, _, value = line.partition(":")
            if key == "Pss":
                figures["Pss"] = int(value.split()[0])
    return figures


def lines(sock):
    buffer = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line.decode()


def ask(path, request):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(path)
        sock.settimeout(30)
        reader = lines(sock)
        next(reader)  # greeting
        sock.sendall(request.encode() + b"\n")
        return next(reader)


def one_watch(path, mode):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        # A blocking connect waits for room in the listen queue instead of failing with EAGAIN.
        sock.connect(path)
        sock.settimeout(30)
        if mode == "blind":
            # Ask and leave at once, reading nothing: the greeting and the report are still on their way.
            sock.sendall(b"watch format=waybar\n")
            return
        if mode == "half-close":
            # As `echo watch | socat - UNIX-CONNECT:…` does: the request, then the end of the sending side.
            sock.sendall(b"watch\n")
            sock.shutdown(socket.SHUT_WR)
        reader = lines(sock)
        next(reader)  # greeting
        if mode == "read":
            sock.sendall(b"watch format=waybar\n")
        next(reader)  # the report now; then leave without a word


def churn(path, cycles, concurrency, mode):
    lock = threading.Lock()
    left = [cycles]
    failures = []

    def worker():
        while True:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
            try:
                one_watch(path, mode)
            except OSError as error:  # a refusal at the limit is a failure of the benchmark
                failures.append(str(error))

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def show(label, figures, status):
    print(
        f"{label:<28} RssAnon {figures['RssAnon'] / 1024:7.1f} MB   Pss {figures['Pss'] / 1024:7.1f} MB   "
        f"RSS {figures['VmRSS'] / 1024:7.1f} MB   clients {status['clients']}, watchers {status['watchers']}"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("socket")
    parser.add_argument("pid", type=int)
    parser.add_argument("--cycles", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--mode", choices=["read", "blind", "half-close"], default="read",
        help="read: read the greeting and the first report, then close; blind: send watch and close at once; "
        "half-close: send watch, shut the sending side, read the first report, close")
    args = parser.parse_args()

    # Warm up (first connections allocate the event loop's and the pool's buffers), then measure.
    churn(args.socket, 200, args.concurrency, args.mode)
    time.sleep(1)
    before = memory(args.pid)
    show("before", before, json.loads(ask(args.socket, "status")))
    started = time.monotonic()
    failures = churn(args.socket, args.cycles, args.concurrency, args.mode)
    elapsed = time.monotonic() - started
    status_started = time.monotonic()
    status = json.loads(ask(args.socket, "status"))
    status_time = time.monotonic() - status_started
    after = memory(args.pid)
    show(f"after {args.cycles} cycles", after, status)
    time.sleep(2)
    show("2 s later", memory(args.pid), json.loads(ask(args.socket, "status")))
    print(
        f"{args.cycles} watch-then-close cycles ({args.mode}) in {elapsed:.1f} s ({args.concurrency} at a time), "
        f"{len(failures)} failed; status answered in {status_time * 1000:.0f} ms; "
        f"RssAnon grew {(after['RssAnon'] - before['RssAnon']) / 1024:+.1f} MB"
    )
    if failures:
        print("first failure:", failures[0])


if __name__ == "__main__":
    main()
