#!/usr/bin/env python3
"""The daemon's memory across reloads: RssAnon and RSS (/proc/PID/status) and Pss (/proc/PID/smaps_rollup)
of a pinned daemon after start-up and a warm-up of 100 reloads, after 5000 `reload` requests on the socket,
and after a storm of 1000 SIGHUPs. The goal (issue 16): RssAnon within 2 MB of the warm-up figure after each.

  Benchmarks/reload-memory.py                       the debug build as it is in .build/debug
  Benchmarks/reload-memory.py --bin .build/release  another build (swift build -c release first)
  Benchmarks/reload-memory.py --reloads 20000 --sighups 5000

The settings file is the one scripts/fault-matrix uses (a pin, one favourite city, the provider on a local
server replaying the recorded Open-Meteo answer); every reload reads and parses it in full.
Exit status 1 when a figure misses the goal.
"""

import argparse
import importlib.machinery
import importlib.util
import os
import signal
import socket
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
loader = importlib.machinery.SourceFileLoader("fault_matrix", os.path.join(ROOT, "scripts", "fault-matrix"))
spec = importlib.util.spec_from_loader("fault_matrix", loader)
matrix = importlib.util.module_from_spec(spec)
loader.exec_module(matrix)


def memory(pid):
    figures = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("RssAnon", "VmRSS"):
                figures[key] = int(value.split()[0]) / 1024
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("Pss:"):
                figures["Pss"] = int(line.split()[1]) / 1024
    return figures


def show(label, figures, base=None):
    growth = "" if base is None else f"   RssAnon {figures['RssAnon'] - base['RssAnon']:+.2f} MB"
    print(f"{label:34} RssAnon {figures['RssAnon']:6.2f} MB   Pss {figures['Pss']:6.2f} MB   "
          f"RSS {figures['VmRSS']:6.2f} MB{growth}", flush=True)


def reloads(daemon, count):
    """`count` reload requests on one connection, each answered before the next is sent."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(30)
        client.connect(daemon.socket)
        reader = client.makefile("rb")
        reader.readline()  # the greeting
        for index in range(count):
            client.sendall(b"reload\n")
            answer = reader.readline()
            if b'"RELOAD"' not in answer or b'"ok":true' not in answer:
                raise SystemExit(f"reload {index + 1} was answered {answer[:200]!r}")


def settle(daemon, seconds=3):
    time.sleep(seconds)
    return memory(daemon.process.pid)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--reloads", type=int, default=5000)
    parser.add_argument("--sighups", type=int, default=1000)
    arguments = parser.parse_args()
    context = matrix.Context(os.path.abspath(arguments.bin), fast=False)
    provider = matrix.Provider()
    try:
        # Debug: the log then says each reload, so the storm's reloads can be counted.
        daemon = matrix.started(context, "reload-memory", provider, log_level="debug")
        binary = os.path.join(context.bin_dir, "forecastd")
        print(f"binary: {binary} ({os.path.getsize(binary)} bytes)")
        show("after start-up and the first fetch", settle(daemon))
        reloads(daemon, 100)
        warm = settle(daemon)
        show("after a warm-up of 100 reloads", warm)

        started = time.monotonic()
        reloads(daemon, arguments.reloads)
        after_reloads = settle(daemon)
        show(f"after {arguments.reloads} reloads ({time.monotonic() - started:.0f} s)", after_reloads, warm)

        def sighup_reloads():
            with open(daemon.log, errors="replace") as log:
                return sum(1 for line in log if "nothing changed" in line and "SIGHUP" in line)

        counted = sighup_reloads()
        for _ in range(arguments.sighups):
            daemon.process.send_signal(signal.SIGHUP)
            time.sleep(0.002)
        # The storm is over when the daemon answers and its log stops growing.
        size = -1
        while size != os.path.getsize(daemon.log):
            size = os.path.getsize(daemon.log)
            time.sleep(2)
        if not daemon.answers():
            raise SystemExit("the daemon does not answer after the SIGHUP storm")
        after_storm = settle(daemon)
        show(f"after {arguments.sighups} SIGHUPs", after_storm, warm)
        print(f"reloads the storm caused: {sighup_reloads() - counted} (signals arriving during a reload are merged)")
        missed = [label for label, figures in [("reloads", after_reloads), ("SIGHUPs", after_storm)]
                  if figures["RssAnon"] - warm["RssAnon"] > 2]
        if missed:
            print(f"goal missed (RssAnon within 2 MB) after the {' and the '.join(missed)}")
        print(f"exit status of SIGTERM: {daemon.stop()}")
        return 1 if missed else 0
    finally:
        for cleanup in context.cleanups:
            cleanup()
        provider.close()
        context.close()


if __name__ == "__main__":
    sys.exit(main())
