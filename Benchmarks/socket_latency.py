#!/usr/bin/env python3
"""Round-trip latency of a newline-delimited JSON request, the way a status-bar script pays it:
connect, read the greeting line, send one request line, read the answer line, close.

    socket_latency.py unix PATH 'report' [--watchers N] [--runs N]
    socket_latency.py tcp HOST:PORT '?POLL;' [--runs N]

Prints the median, 90th and 99th percentile in microseconds. With --watchers, N extra clients
stay connected in "watch" mode (read continuously by a thread) while the measurement runs.
"""
import argparse, socket, statistics, threading, time


def connect(kind, address):
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(address)
    else:
        host, port = address.rsplit(":", 1)
        s = socket.create_connection((host, int(port)))
    return s


def read_line(s, buffer):
    while b"\n" not in buffer:
        chunk = s.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed")
        buffer += chunk
    line, _, rest = buffer.partition(b"\n")
    return line, rest


def one(kind, address, request):
    start = time.perf_counter_ns()
    s = connect(kind, address)
    try:
        _, rest = read_line(s, b"")  # greeting
        s.sendall(request.encode() + b"\n")
        answer, _ = read_line(s, rest)
    finally:
        s.close()
    elapsed = time.perf_counter_ns() - start
    if not answer:
        raise RuntimeError("empty answer")
    return elapsed / 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["unix", "tcp"])
    parser.add_argument("address")
    parser.add_argument("request")
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--watchers", type=int, default=0)
    args = parser.parse_args()

    watchers = []
    stop = threading.Event()
    for _ in range(args.watchers):
        s = connect(args.kind, args.address)
        s.sendall(b"watch\n")
        watchers.append(s)

    def drain():
        import selectors
        selector = selectors.DefaultSelector()
        for s in watchers:
            selector.register(s, selectors.EVENT_READ)
        while not stop.is_set():
            for key, _ in selector.select(timeout=0.1):
                key.fileobj.recv(65536)

    thread = threading.Thread(target=drain, daemon=True)
    if watchers:
        thread.start()
        time.sleep(0.5)

    for _ in range(50):  # warm-up
        one(args.kind, args.address, args.request)
    samples = sorted(one(args.kind, args.address, args.request) for _ in range(args.runs))
    stop.set()
    q = lambda p: samples[min(len(samples) - 1, int(p * len(samples)))]
    print(f"{args.request!r} over {args.kind} with {args.watchers} watchers, {args.runs} runs: "
          f"median {statistics.median(samples):.0f} µs, p90 {q(0.90):.0f} µs, p99 {q(0.99):.0f} µs")


if __name__ == "__main__":
    main()
