#!/usr/bin/env python3
"""Prints an NMEA 0183 log of a receiver driving at a steady speed, for gpsfake.

Benchmarks/idle.sh's `moving` case replays it: Tests/Fixtures/nmea holds only recordings of receivers standing
still or creeping (gpsd's regression logs), and a receiver in a van moves more than the daemon's hand-on
distance (12.5 m) at every fix. Synthetic, not a recording: four sentences per epoch (RMC, GGA, GSA, VTG), one
epoch a second, a straight line from the start point on a constant bearing.

    Benchmarks/moving-track.py [EPOCHS [SPEED_M_S [LAT LON]]]     default: 900 epochs, 20 m/s, from 48.9043 2.3330
"""
import datetime
import math
import sys

epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 900
speed = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
lat, lon = (float(sys.argv[3]), float(sys.argv[4])) if len(sys.argv) > 4 else (48.9043, 2.3330)
bearing = 60.0  # degrees from north
start = datetime.datetime(2026, 11, 24, 12, 0, 0)


def sentence(body):
    checksum = 0
    for char in body:
        checksum ^= ord(char)
    return f"${body}*{checksum:02X}\r\n"


def nmea_angle(value, degree_digits, positive, negative):
    hemisphere = positive if value >= 0 else negative
    value = abs(value)
    degrees = int(value)
    minutes = (value - degrees) * 60
    return f"{degrees:0{degree_digits}d}{minutes:07.4f}", hemisphere


out = sys.stdout
for epoch in range(epochs):
    moment = start + datetime.timedelta(seconds=epoch)
    clock = moment.strftime("%H%M%S") + ".00"
    date = moment.strftime("%d%m%y")
    lat_text, ns = nmea_angle(lat, 2, "N", "S")
    lon_text, ew = nmea_angle(lon, 3, "E", "W")
    knots = speed * 3600 / 1852
    out.write(sentence(f"GPRMC,{clock},A,{lat_text},{ns},{lon_text},{ew},{knots:.1f},{bearing:.1f},{date},,,A"))
    out.write(sentence(f"GPGGA,{clock},{lat_text},{ns},{lon_text},{ew},1,09,0.9,45.0,M,47.0,M,,"))
    out.write(sentence("GPGSA,A,3,02,05,07,09,13,16,20,26,29,,,,1.6,0.9,1.3"))
    out.write(sentence(f"GPVTG,{bearing:.1f},T,,M,{knots:.1f},N,{speed * 3.6:.1f},K,A"))
    # One second along the bearing on a sphere: plenty for a benchmark's few kilometres.
    north = speed * math.cos(math.radians(bearing))
    east = speed * math.sin(math.radians(bearing))
    lat += north / 111_320
    lon += east / (111_320 * math.cos(math.radians(lat)))
