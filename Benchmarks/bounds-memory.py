#!/usr/bin/env python3
"""The daemon's memory against the hostile inputs of issue 28, one daemon per case: RssAnon and Pss idle after its
first forecast, the highest RssAnon seen while the input is handled (sampled every 20 ms), and both after.

  Benchmarks/bounds-memory.py                        the release build in .build/release (swift build -c release)
  Benchmarks/bounds-memory.py --bin .build/debug     the debug build
  Benchmarks/bounds-memory.py --only catalogue       the cases whose name contains this

The cases, with the servers and settings of scripts/fault-matrix (pinned, the recorded Open-Meteo answer moved to
today on a local server):
  catalogue: nested 2,000 deep / 10,000 ! / 50 MB msgstr   es.po damaged so, then `set display.language es`
  air: Sydney / 40 days old / 400 days ahead                a good air answer, then that one (test clock 300x)
  notifications: 10,000 warnings                            a Bright Sky feed of 10,000 warnings for Berlin with
                                                            notifications on (a dbusmock server), and, to set the
                                                            notifier's share apart, the same with them off
Goal: RssAnon at most 32 MB in every case, far under the units' MemoryMax (printed from systemd/).
"""

import argparse
import importlib.machinery
import os
import re
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fm = importlib.machinery.SourceFileLoader("fault_matrix", os.path.join(ROOT, "scripts", "fault-matrix")).load_module()


class Sampler:
    """The highest RssAnon of a process while it runs, sampled every 20 ms on a thread."""

    def __init__(self, daemon):
        self.daemon = daemon
        self.peak = 0
        self.running = True
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self):
        while self.running:
            try:
                self.peak = max(self.peak, self.daemon.rss_anon_kb())
            except (OSError, ValueError):
                pass
            time.sleep(0.02)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.peak


def mb(kb):
    return f"{kb / 1024:.1f}"


def run_case(name, start, hostile, settle=3):
    """Starts a daemon with `start()`, measures, applies `hostile(daemon)` while sampling, settles, measures."""
    daemon, cleanups = start()
    try:
        before = (daemon.rss_anon_kb(), daemon.pss_kb())
        sampler = Sampler(daemon)
        note = hostile(daemon)
        time.sleep(settle)
        peak = sampler.stop()
        alive = daemon.alive() and daemon.answers()
        after = (daemon.rss_anon_kb(), daemon.pss_kb()) if daemon.alive() else (0, 0)
        print(f"| {name} | {mb(before[0])} | {mb(before[1])} | {mb(peak)} | {mb(after[0])} | {mb(after[1])} | "
              f"{'yes' if alive else 'NO'} | {note} |", flush=True)
    finally:
        for cleanup in reversed(cleanups):
            try:
                cleanup()
            except Exception:
                pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--only")
    arguments = parser.parse_args()
    context = fm.Context(os.path.abspath(arguments.bin), fast=False)
    for unit in ["systemd/system/forecastd.service", "systemd/user/forecastd.service"]:
        path = os.path.join(ROOT, unit)
        if os.path.exists(path):
            limit = re.search(r"^MemoryMax=(\S+)", open(path).read(), re.M)
            print(f"{unit}: MemoryMax={limit.group(1) if limit else '(none)'}")
    print(f"binaries: {context.bin_dir}\n")
    print("| case | RssAnon idle | Pss idle | RssAnon peak | RssAnon after | Pss after | answers | note |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")

    def started(name, settings, env):
        daemon = fm.Daemon(context.bin_dir, context.directory(name), settings)
        daemon.extra_env = env
        daemon.start()
        if not daemon.wait_for(daemon.has_forecast, 30):
            raise fm.SetupError(f"{name}: no first forecast; log: {daemon.log}")
        time.sleep(2)
        return daemon

    cases = []
    for kind, label in [("nested", "nested 2,000 deep"), ("bangs", "10,000 !"), ("huge", "50 MB msgstr")]:
        def start(kind=kind):
            provider = fm.Provider()
            directory = context.directory("catalogue-" + kind)
            locale = os.path.join(directory, "po")
            os.makedirs(locale, exist_ok=True)
            with open(os.path.join(locale, "es.po"), "wb") as file:
                file.write(fm.damaged_catalogue(kind))
            daemon = started("catalogue-" + kind, fm.settings_text(provider.port), {"FORECASTD_LOCALEDIR": locale})
            return daemon, [provider.close, daemon.kill9]

        def hostile(daemon):
            daemon.request("set display.language es", timeout=15)
            time.sleep(1)
            daemon.request('{"request":"report","format":"waybar"}')
            return "English kept" if "using English" in open(daemon.log).read() else "no log line"
        cases.append((f"catalogue: {label}", start, hostile))

    for mode, label in [("sydney", "Sydney for Samara"), ("old", "40 days old"), ("ahead", "400 days ahead")]:
        air = {}

        def start(mode=mode, air=air):
            provider = fm.Provider()
            service = fm.AirService()
            air["service"] = service
            settings = fm.settings_text(provider.port).replace(
                "[air]\nenabled = false",
                f'[air]\nenabled = true\nurl = "http://127.0.0.1:{service.port}/v1/air-quality"')
            daemon = started("air-" + mode, settings, {"FORECASTD_TEST_CLOCK_SPEED": "300"})
            daemon.wait_for(lambda: daemon.report().get("air") is not None, 30)
            return daemon, [provider.close, service.close, daemon.kill9]

        def hostile(daemon, mode=mode, air=air):
            service = air["service"]
            service.mode = mode
            asked = service.requests
            daemon.wait_for(lambda: service.requests > asked, 20)
            said = daemon.wait_for(lambda: any(e.get("kind") == "air" for e in daemon.report().get("errors", [])), 20)
            return "refused, last reading kept" if said and daemon.report().get("air") else "not refused"
        cases.append((f"air: {label}", start, hostile))

    for notify in [True, False]:
        def start(notify=notify):
            directory = context.directory("flood-" + str(notify))
            bus = fm.PrivateBus(directory)
            provider = fm.Provider()
            feed = fm.StaticService(b'{"alerts":[],"location":{"name":"Berl. - Mitte"}}')
            settings = (fm.settings_text(provider.port, pin=(52.52, 13.405),
                                         warnings=f'[warnings]\nenabled = true\n\n[warnings.bright_sky]\n'
                                                  f'url = "http://127.0.0.1:{feed.port}/alerts"\n')
                        + f'\n[notifications]\nenabled = {"true" if notify else "false"}\nminimum_severity = "minor"\n')
            daemon = started("flood-" + str(notify), settings, {"DBUS_SESSION_BUS_ADDRESS": bus.address})
            daemon.flood = (bus, feed)
            return daemon, [bus.close, provider.close, feed.close, daemon.kill9]

        def hostile(daemon):
            bus, feed = daemon.flood
            # The next warnings request (a new URL asks at once) gets the flood.
            body = fm.bright_sky_flood(10_000)
            flood = fm.StaticService(body)
            daemon.flood = (bus, flood)
            daemon.request(f"set warnings.bright_sky.url http://127.0.0.1:{flood.port}/alerts", timeout=15)
            # The report lists the 20 most severe and counts the rest (warnings_omitted).
            daemon.wait_for(lambda: (daemon.report().get("warnings_omitted") or 0) > 1000, 60)
            time.sleep(5)
            sent = bus.notified()
            flood.close()
            return f"{len(daemon.report().get('warnings') or [])} warnings, {len(sent)} notifications"
        cases.append((f"notifications {'on' if notify else 'off'}: 10,000 warnings", start, hostile))

    try:
        for name, start, hostile in cases:
            if arguments.only and arguments.only not in name:
                continue
            run_case(name, start, hostile)
    finally:
        context.close()


if __name__ == "__main__":
    main()
