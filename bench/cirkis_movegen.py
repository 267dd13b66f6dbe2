"""CirKis move generation: legal placements generated per second from random mid-game positions.

    python -m bench.cirkis_movegen --positions 2000 --repeat 20

Positions come from random games (2-4 seats, uniformly random legal placements, each position
kept with probability 1/3, free turns included), all from `random.Random(seed)`. Each position's
`RULES.legal_moves` is then timed `repeat` times. Prints the positions, the mean number of legal
placements, placements per second and `legal_moves` calls per second (wall clock and CPU), and
the rate of whole random-play placements (`RULES.play` with its automatic lost-turn checks).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from cirkis.rules import RULES, GameState


def random_positions(count: int, *, seed: int) -> tuple[list[GameState], int, float]:
    """`count` positions from random games, the placements played and the seconds they took."""
    rng = random.Random(seed)
    positions: list[GameState] = []
    plies = 0
    seconds = 0.0
    game = 0
    while len(positions) < count:
        state = RULES.new_game(2 + game % 3, seed=0, options={})
        game += 1
        while RULES.to_move(state) is not None and len(positions) < count:
            moves = RULES.legal_moves(state)
            if state.leader is not None and rng.random() < 1 / 3:
                positions.append(state)
            move = rng.choice(moves)
            started = time.perf_counter()
            state = RULES.play(state, move)
            seconds += time.perf_counter() - started
            plies += 1
    return positions, plies, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    positions, plies, play_seconds = random_positions(args.positions, seed=args.seed)
    generated = 0
    wall = time.perf_counter()
    cpu = time.process_time()
    for _ in range(args.repeat):
        for state in positions:
            generated += len(RULES.legal_moves(state))
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    calls = len(positions) * args.repeat
    print(f"CirKis move generation: {len(positions)} positions x {args.repeat}, seed {args.seed}")
    print(f"  mean legal placements per position {generated / calls:.1f}")
    print(
        f"  {generated:,} placements in {wall:.2f} s: {generated / wall:,.0f} placements/s "
        f"({generated / cpu:,.0f} per CPU second)"
    )
    print(f"  {calls / wall:,.0f} legal_moves calls/s ({calls / cpu:,.0f} per CPU second)")
    print(
        f"  random play: {plies:,} placements (RULES.play with lost-turn checks) in "
        f"{play_seconds:.2f} s: {plies / play_seconds:,.0f} placements/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
