"""Benchmark: the printed ink of 1,000 line glyphs (inkcrawl.ink.glyph_silhouette).

    cd /path/to/inkcrawl && PYTHONPATH=. .venv/bin/python benchmarks/glyph_ink.py

Prints the time for 1,000 silhouettes of every glyph kind at 5 sizes (the cache filled by a
first pass, then timed again) and at 1,000 different sizes (nothing cached).
"""

from __future__ import annotations

import time

from inkcrawl.ink import GLYPH_KINDS, glyph_silhouette

KINDS = sorted(GLYPH_KINDS)


def run(sizes) -> float:
    start = time.perf_counter()
    for i in range(1000):
        glyph_silhouette(KINDS[i % len(KINDS)], (i % 40 * 5.0, i // 40 * 5.0), sizes(i), (i * 37) % 360)
    return time.perf_counter() - start


if __name__ == "__main__":
    five = lambda i: 4.0 + (i % 5) * 1.5
    run(five)
    print(f"1,000 silhouettes, 5 sizes, cache filled: {run(five) * 1000:.0f} ms")
    print(f"1,000 silhouettes, 1,000 sizes (nothing cached): {run(lambda i: 4.0 + i * 0.0123) * 1000:.0f} ms")
