"""CirKis: one computer level against another in 2-player games, on the pure engine only.

    python -m bench.cirkis_match --a hard --b normal --games 50 --budget-ms 1000

Game ``g`` seats level A at seat ``g % 2`` (so A starts every other game) and level B at the other
seat. CirKis has no chance, so the games differ only by the players' seeds: each computer move gets
its own seed from one `random.Random(seed)`, which makes a run reproducible. Prints A's wins,
losses and shared wins (ties), the endings, the mean points, and the mean (wall clock and CPU)
and slowest thinking time per move of each level.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from cirkis.ai import LEVELS, choose_move
from cirkis.rules import RULES

MAX_PLIES = 2_000


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    losses: int = 0
    shared: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    points: Counter[str] = field(default_factory=Counter)
    moves: Counter[str] = field(default_factory=Counter)
    seconds: Counter[str] = field(default_factory=Counter)
    cpu: Counter[str] = field(default_factory=Counter)
    slowest: Counter[str] = field(default_factory=Counter)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", choices=LEVELS, default="hard", help="the level measured")
    parser.add_argument("--b", choices=LEVELS, default="normal", help="its opponent")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1, help="seed of the computers' seeds")
    parser.add_argument("--budget-ms", type=int, default=1000, help="the AI's budget_ms")
    parser.add_argument("--center-ring", action="store_true", help="play the Center Ring option")
    parser.add_argument("--long-game", action="store_true", help="play the long game to 100")
    args = parser.parse_args(argv)

    options = {"center_ring": args.center_ring, "long_game": args.long_game}
    rng = random.Random(args.seed)
    tally = Tally()
    started = time.perf_counter()
    for game in range(args.games):
        a_seat = game % 2
        levels = (args.a, args.b) if a_seat == 0 else (args.b, args.a)
        scores, winners = play_game(levels, rng, args.budget_ms, options, tally)
        tally.games += 1
        tally.points["A"] += scores[a_seat]
        tally.points["B"] += scores[1 - a_seat]
        if a_seat in winners:
            if len(winners) > 1:
                tally.shared += 1
            else:
                tally.wins += 1
        else:
            tally.losses += 1
    wall = time.perf_counter() - started

    games = tally.games or 1
    print(
        f"CirKis: A={args.a} vs B={args.b}, {tally.games} 2-player games, "
        f"budget {args.budget_ms} ms, seed {args.seed}, options {options}"
    )
    print(f"  A wins   {tally.wins}  ({tally.wins / games:.0%})")
    print(f"  A losses {tally.losses}")
    print(f"  ties     {tally.shared}  (shared wins)")
    print(f"  endings  {dict(sorted(tally.reasons.items()))}")
    print(f"  mean points A {tally.points['A'] / games:.1f}, B {tally.points['B'] / games:.1f}")
    for level in dict.fromkeys((args.a, args.b)):
        count = tally.moves[level]
        if count:
            mean_ms = tally.seconds[level] / count * 1000
            cpu_ms = tally.cpu[level] / count * 1000
            print(
                f"  {level:<7} {count} moves, mean {mean_ms:.1f} ms per move "
                f"({cpu_ms:.1f} ms CPU), slowest {tally.slowest[level] * 1000:.0f} ms"
            )
    print(f"  wall time {wall:.1f} s")
    return 0


def play_game(
    levels: tuple[str, str], rng: random.Random, budget_ms: int, options: dict, tally: Tally
) -> tuple[list[int], list[int]]:
    """Play one game with `levels[seat]` at each seat; return the scores and the winners."""
    state = RULES.new_game(2, seed=0, options=options)
    for _ in range(MAX_PLIES):
        seat = RULES.to_move(state)
        if seat is None:
            break
        level = levels[seat]
        started, cpu = time.perf_counter(), time.process_time()
        move = choose_move(state, level=level, seed=rng.getrandbits(63), budget_ms=budget_ms)
        elapsed = time.perf_counter() - started
        tally.cpu[level] += time.process_time() - cpu
        tally.moves[level] += 1
        tally.seconds[level] += elapsed
        tally.slowest[level] = max(tally.slowest[level], elapsed)
        state = RULES.play(state, move)
    else:
        raise RuntimeError(f"A game did not end in {MAX_PLIES} placements.")
    outcome = RULES.outcome(state)
    assert outcome is not None
    tally.reasons[outcome.reason] += 1
    return outcome.scores, outcome.winners


if __name__ == "__main__":
    sys.exit(main())
