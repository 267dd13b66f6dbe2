"""Circles: two computer levels play a match, on the pure engine only (no Django, no database).

    python -m bench.circles_match --a hard --b medium --games 50 --budget-ms 1000

Player A plays white (seat 0, moving first) in even games and black in odd ones. Every move gets
its own seed from ``random.Random(f"{seed}:{game}")``, so the easy and medium players vary from
game to game and a match is reproducible from ``--seed`` (the hard player, which thinks against
the clock, may still vary with the machine's speed). Prints one line per game, then A's wins,
losses and ties (a tie is not a win), A's win rate, the mean disc margin, and each side's mean
and slowest time per move (wall clock; the slowest move's CPU time too, which tells a slow search
from a busy machine) and how many moves took more than 110% of the budget.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from dataclasses import dataclass, field

from circles.ai import LEVELS, choose_move
from circles.rules import RULES


@dataclass
class Side:
    level: str
    moves: int = 0
    seconds: float = 0.0
    slowest: float = 0.0
    slowest_cpu: float = 0.0
    late: int = 0
    """Moves that took more than 110% of the budget (wall clock)."""

    def record(self, elapsed: float, cpu: float, budget_ms: int) -> None:
        self.moves += 1
        self.seconds += elapsed
        self.slowest = max(self.slowest, elapsed)
        self.slowest_cpu = max(self.slowest_cpu, cpu)
        self.late += elapsed > 1.1 * budget_ms / 1000

    @property
    def mean_ms(self) -> float:
        return 1000 * self.seconds / self.moves if self.moves else 0.0


@dataclass
class Tally:
    wins: int = 0
    losses: int = 0
    ties: int = 0
    margins: list[int] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.ties


def play_game(game: int, a: Side, b: Side, *, seed: int, budget_ms: int) -> tuple[int, int]:
    """Play game `game`; returns (A's discs, B's discs)."""
    rng = random.Random(f"{seed}:{game}")
    a_seat = game % 2
    sides = (a, b) if a_seat == 0 else (b, a)
    state = RULES.new_game(2, seed=0, options={})
    while (seat := RULES.to_move(state)) is not None:
        side = sides[seat]
        started, started_cpu = time.perf_counter(), time.process_time()
        move = choose_move(state, level=side.level, seed=rng.getrandbits(63), budget_ms=budget_ms)
        side.record(time.perf_counter() - started, time.process_time() - started_cpu, budget_ms)
        state = RULES.play(state, move)
    outcome = RULES.outcome(state)
    assert outcome is not None
    return outcome.scores[a_seat], outcome.scores[1 - a_seat]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", choices=LEVELS, default="hard", help="player A's level")
    parser.add_argument("--b", choices=LEVELS, default="medium", help="player B's level")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--budget-ms", type=int, default=1000, help="both players' budget_ms")
    parser.add_argument("--seed", type=int, default=1, help="base of the per-game seeds")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")

    print(
        f"A={args.a} vs B={args.b}: {args.games} games, budget {args.budget_ms} ms, "
        f"seed {args.seed}; Python {platform.python_version()}, {os.cpu_count()} CPUs",
        flush=True,
    )
    a, b = Side(args.a), Side(args.b)
    tally = Tally()
    started = time.perf_counter()
    for game in range(args.games):
        a_discs, b_discs = play_game(game, a, b, seed=args.seed, budget_ms=args.budget_ms)
        tally.margins.append(a_discs - b_discs)
        if a_discs > b_discs:
            tally.wins += 1
            result = "win"
        elif a_discs < b_discs:
            tally.losses += 1
            result = "loss"
        else:
            tally.ties += 1
            result = "tie"
        if not args.quiet:
            colour = "white" if game % 2 == 0 else "black"
            print(
                f"game {game + 1:>3}: A ({colour}) {a_discs:>2}-{b_discs:<2} {result:<4}"
                f"  [{tally.wins}-{tally.losses}-{tally.ties}]",
                flush=True,
            )
    elapsed = time.perf_counter() - started

    print(
        f"A ({args.a}) against B ({args.b}): {tally.wins} wins, {tally.losses} losses, "
        f"{tally.ties} ties in {tally.games} games; win rate {100 * tally.wins / tally.games:.1f}%"
    )
    print(f"mean disc margin for A: {sum(tally.margins) / tally.games:+.1f}")
    for name, side in (("A", a), ("B", b)):
        print(
            f"{name} ({side.level}): {side.moves} moves, mean {side.mean_ms:.1f} ms per move, "
            f"slowest {1000 * side.slowest:.1f} ms (CPU {1000 * side.slowest_cpu:.1f} ms), "
            f"{side.late} over 110% of the budget"
        )
    print(f"match time {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
