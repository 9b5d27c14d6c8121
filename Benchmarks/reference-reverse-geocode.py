#!/usr/bin/env python3
"""Reference figures for docs/performance.md: the reverse_geocode package from PyPI.

reverse_geocode answers the same question (nearest GeoNames place with population >= 1000)
with a scipy k-d tree built at import time. Run it on the same machine as Benchmarks/run.sh:

    python3 -m venv /tmp/rg && /tmp/rg/bin/pip install reverse_geocode==1.6.6
    /tmp/rg/bin/python Benchmarks/reference-reverse-geocode.py

The points are uniform over the sphere, like the Swift benchmarks' random points.
"""

import math
import random
import statistics
import time

start = time.perf_counter()
import reverse_geocode  # noqa: E402  (the import is part of what is timed)

reverse_geocode.get((48.9043, 2.3330))  # the first call loads the data and builds the tree
load = time.perf_counter() - start

generator = random.Random(7)
points = [
    (math.degrees(math.asin(generator.uniform(-1, 1))), generator.uniform(-180, 180)) for _ in range(20000)
]
samples = []
for point in points[:5000]:
    start = time.perf_counter()
    reverse_geocode.get(point)
    samples.append(time.perf_counter() - start)
start = time.perf_counter()
reverse_geocode.search(points)
batch = (time.perf_counter() - start) / len(points)

print(f"load (import and first lookup): {load * 1000:.0f} ms")
median, mean = statistics.median(samples) * 1e6, statistics.mean(samples) * 1e6
print(f"one lookup, get(): median {median:.1f} us, mean {mean:.1f} us")
print(f"batch search() of {len(points)} points: {batch * 1e6:.2f} us per point")
