"""Shared pieces of the match harnesses: paired deals, Wilson intervals, time per action, load.

Stable API (bench/cirkis_match.py and bench/kingscorner_match.py use it):

- `paired_schedule(deals=, seats=, seed=)`: every deal played twice with the sides swapped, as
  `PairedGame(deal, seed, lineup)`; `lineup[seat]` is ``"a"`` or ``"b"``, alternating around the
  table (two players: ``a b`` then ``b a``; four: ``a b a b`` then ``b a b a``), so luck of the
  deal and of the seat order cancels out within each pair.
- `wilson_interval(score, games)`: the 95% Wilson score interval of a score (wins, with shared
  wins and draws counted as fractions) over `games` games.
- `Timing`: wall and CPU time per action (`record`, then `mean_ms`, `p99_ms`, `summary()`).
- `machine_line()`: the machine's cores and load averages, to print with every result, since the
  machine the figures came from is rarely idle.
"""

from __future__ import annotations

import math
import os
import platform
import random
from dataclasses import dataclass, field

__all__ = [
    "PairedGame",
    "Timing",
    "load_average",
    "machine_line",
    "paired_schedule",
    "wilson_interval",
]

Z_95 = 1.959964


@dataclass(frozen=True, slots=True)
class PairedGame:
    deal: int
    """Which deal of the run (both games of a pair share it)."""
    seed: int
    """The deal's seed: the same for both games of a pair."""
    lineup: tuple[str, ...]
    """``"a"`` or ``"b"`` for each seat, seat 0 first."""


def paired_schedule(*, deals: int, seats: int, seed: int) -> list[PairedGame]:
    """`deals` deals, each played twice with the sides swapped; deal seeds drawn from `seed`."""
    rng = random.Random(seed)
    first = tuple("ab"[seat % 2] for seat in range(seats))
    swapped = tuple("ba"[seat % 2] for seat in range(seats))
    games: list[PairedGame] = []
    for deal in range(deals):
        deal_seed = rng.getrandbits(63)
        games.append(PairedGame(deal, deal_seed, first))
        games.append(PairedGame(deal, deal_seed, swapped))
    return games


def wilson_interval(score: float, games: int, *, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of `score` successes out of `games` (95% by default)."""
    if games <= 0:
        return (0.0, 1.0)
    p = score / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Timing:
    """Wall-clock and CPU seconds of each action one side took."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def record(self, wall: float, cpu: float) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)

    @staticmethod
    def _p99(values: list[float]) -> float:
        if not values:
            return 0.0
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]

    def mean_ms(self, *, cpu: bool = False) -> float:
        values = self.cpu if cpu else self.wall
        return 1000 * sum(values) / len(values) if values else 0.0

    def p99_ms(self, *, cpu: bool = False) -> float:
        return 1000 * self._p99(self.cpu if cpu else self.wall)

    def summary(self) -> str:
        return (
            f"{len(self.wall)} actions, wall mean {self.mean_ms():.1f} ms p99 {self.p99_ms():.1f}"
            f" ms, CPU mean {self.mean_ms(cpu=True):.1f} ms p99 {self.p99_ms(cpu=True):.1f} ms"
        )


def load_average() -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages (zeros where the system has none)."""
    try:
        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


def machine_line() -> str:
    one, five, fifteen = load_average()
    return (
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores,"
        f" load average {one:.2f} {five:.2f} {fifteen:.2f}"
    )
