"""King's Corner: the `normal` computer player against `easy` ones, on the pure engine only.

    python -m bench.kingscorner_match --players 4 --games 200

Game ``g`` is dealt from seed ``base_seed + g`` and seats `normal` at seat ``g % players`` (so it
starts one game in `players`); every other seat is `easy`. Each computer action gets its own seed
from one `random.Random(base_seed)`, so a run is reproducible. Prints wins (a shared stalemate win
counts as a win and is also reported on its own), losses, the win rate against the 1/players an
equal player would get, and the mean thinking time per action of each level.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from kingscorner.ai import choose_move
from kingscorner.rules import RULES

MAX_ACTIONS = 20_000


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    shared: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    seconds: Counter[str] = field(default_factory=Counter)
    slowest: float = 0.0


def play_game(
    *, players: int, seed: int, normal_seat: int, rng: random.Random, budget_ms: int, tally: Tally
) -> None:
    state = RULES.new_game(players, seed=seed, options={})
    for _ in range(MAX_ACTIONS):
        seat = RULES.to_move(state)
        if seat is None:
            break
        level = "normal" if seat == normal_seat else "easy"
        started = time.perf_counter()
        move = choose_move(state, level=level, seed=rng.getrandbits(63), budget_ms=budget_ms)
        elapsed = time.perf_counter() - started
        tally.actions[level] += 1
        tally.seconds[level] += elapsed
        if level == "normal":
            tally.slowest = max(tally.slowest, elapsed)
        state = RULES.play(state, move)
    else:
        raise RuntimeError(f"Game {seed} did not end in {MAX_ACTIONS} actions.")
    outcome = RULES.outcome(state)
    assert outcome is not None
    tally.games += 1
    tally.reasons[outcome.reason] += 1
    if normal_seat in outcome.winners:
        tally.wins += 1
        if len(outcome.winners) > 1:
            tally.shared += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, help="seats per game, 2-6")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1, help="base seed of deals and AI seeds")
    parser.add_argument("--budget-ms", type=int, default=1000, help="the AI's budget_ms")
    args = parser.parse_args(argv)
    if not RULES.min_seats <= args.players <= RULES.max_seats:
        parser.error("--players must be 2 to 6")

    rng = random.Random(args.seed)
    tally = Tally()
    started = time.perf_counter()
    for game in range(args.games):
        play_game(
            players=args.players,
            seed=args.seed + game,
            normal_seat=game % args.players,
            rng=rng,
            budget_ms=args.budget_ms,
            tally=tally,
        )
    wall = time.perf_counter() - started

    losses = tally.games - tally.wins
    rate = tally.wins / tally.games if tally.games else 0.0
    print(
        f"King's Corner: normal vs {args.players - 1} easy, {tally.games} games, seed {args.seed}"
    )
    print(f"  normal wins   {tally.wins} (shared stalemate wins: {tally.shared})")
    print(f"  normal losses {losses}")
    print(f"  win rate      {rate:.1%}  (an equal player: {1 / args.players:.1%})")
    print(f"  endings       {dict(sorted(tally.reasons.items()))}")
    for level in ("normal", "easy"):
        count = tally.actions[level]
        if count:
            mean_ms = tally.seconds[level] / count * 1000
            print(f"  {level:<7} {count} actions, mean {mean_ms:.3f} ms per action")
    print(f"  normal slowest action {tally.slowest * 1000:.1f} ms; wall time {wall:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
