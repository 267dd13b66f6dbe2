"""Circles perft from the start position, standalone (no Django): ``python -m bench.circles_perft``.

Prints, for each depth 1..N, the leaf count, the wall-clock and CPU seconds it took, leaves per
second of each, and whether the count matches the known value from the rules. Exits 1 on a
wrong count.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from circles.rules import Position, perft

EXPECTED = (4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800)
"""Known perft counts for depths 1-11 (a pass is one ply, a finished game one leaf)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=9, help="deepest depth (default 9)")
    args = parser.parse_args(argv)
    if args.depth < 1:
        parser.error("--depth must be at least 1")

    print(
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{os.cpu_count()} CPUs, {platform.machine()}"
    )
    print(
        f"{'depth':>5}  {'leaves':>13}  {'seconds':>9}  {'leaves/s':>12}"
        f"  {'cpu s':>8}  {'leaves/cpu s':>12}  check"
    )
    start = Position.start()
    failures = 0
    for depth in range(1, args.depth + 1):
        began, began_cpu = time.perf_counter(), time.process_time()
        leaves = perft(start, depth)
        elapsed = time.perf_counter() - began
        cpu = time.process_time() - began_cpu
        if depth <= len(EXPECTED):
            ok = leaves == EXPECTED[depth - 1]
            failures += not ok
            check = "ok" if ok else f"WRONG (expected {EXPECTED[depth - 1]:,})"
        else:
            check = "?"
        print(
            f"{depth:>5}  {leaves:>13,}  {elapsed:>9.3f}  {_rate(leaves, elapsed):>12}"
            f"  {cpu:>8.3f}  {_rate(leaves, cpu):>12}  {check}"
        )
    return 1 if failures else 0


def _rate(leaves: int, seconds: float) -> str:
    return f"{leaves / seconds:,.0f}" if seconds > 0 else "-"


if __name__ == "__main__":
    raise SystemExit(main())
