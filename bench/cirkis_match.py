"""CirKis: one computer level against others, on the pure engine only.

    python -m bench.cirkis_match --a hard --b normal --games 50 --budget-ms 1000
    python -m bench.cirkis_match --a easy --b easy --seats 3 --games 24 --long-game

Game ``g`` seats level A at seat ``g % seats`` (so A starts every ``seats``-th game) and level B at
every other seat (2 seats by default). CirKis has no chance, so the games differ only by the
players' seeds: each computer move gets its own seed from one `random.Random(seed)`, which makes
a run reproducible. Prints A's wins, losses and shared wins (ties), the endings, the mean points
(B: the best B seat), and the mean (wall clock and CPU) and slowest thinking time per move of each
level. Long games also print the rounds played, how the rounds ended, the scoreless rounds and the
final totals below 100.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from cirkis.ai import LEVELS, choose_move
from cirkis.rules import LONG_TARGET, RULES, GameState

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
    rounds: int = 0
    round_endings: Counter[str] = field(default_factory=Counter)
    scoreless: int = 0
    below_target: list[list[int]] = field(default_factory=list)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", choices=LEVELS, default="hard", help="the level measured")
    parser.add_argument("--b", choices=LEVELS, default="normal", help="its opponent")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seats", type=int, choices=(2, 3, 4), default=2)
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
        a_seat = game % args.seats
        levels = tuple(args.a if seat == a_seat else args.b for seat in range(args.seats))
        scores, winners = play_game(levels, rng, args.budget_ms, options, tally)
        tally.games += 1
        tally.points["A"] += scores[a_seat]
        tally.points["B"] += max(s for seat, s in enumerate(scores) if seat != a_seat)
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
        f"CirKis: A={args.a} vs B={args.b}, {tally.games} {args.seats}-player games, "
        f"budget {args.budget_ms} ms, seed {args.seed}, options {options}"
    )
    print(f"  A wins   {tally.wins}  ({tally.wins / games:.0%})")
    print(f"  A losses {tally.losses}")
    print(f"  ties     {tally.shared}  (shared wins)")
    print(f"  endings  {dict(sorted(tally.reasons.items()))}")
    print(f"  mean points A {tally.points['A'] / games:.1f}, B {tally.points['B'] / games:.1f}")
    if args.long_game:
        print(
            f"  rounds   {tally.rounds} (mean {tally.rounds / games:.1f}), ended "
            f"{dict(sorted(tally.round_endings.items()))}, scoreless {tally.scoreless}"
        )
        print(f"  totals below 100 at the end: {tally.below_target}")
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
    levels: tuple[str, ...], rng: random.Random, budget_ms: int, options: dict, tally: Tally
) -> tuple[list[int], list[int]]:
    """Play one game with `levels[seat]` at each seat; return the scores and the winners."""
    state = RULES.new_game(len(levels), seed=0, options=options)
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
        after = RULES.play(state, move)
        if after.round != state.round or after.finished is not None:
            count_round(state, after, tally)
        state = after
    else:
        raise RuntimeError(f"A game did not end in {MAX_PLIES} placements.")
    outcome = RULES.outcome(state)
    assert outcome is not None
    tally.reasons[outcome.reason] += 1
    if options.get("long_game") and max(outcome.scores) < LONG_TARGET:
        tally.below_target.append(outcome.scores)
    return outcome.scores, outcome.winners


def count_round(before: GameState, after: GameState, tally: Tally) -> None:
    """Tally the round that the placement from `before` to `after` ended."""
    tally.rounds += 1
    types = [event.type for event in after.events]
    over = next((e.reason for e in after.events if e.type == "round_over"), None)
    if over is None:  # the game ended with this round
        if types.count("lost_turn") == after.seats:
            over = "blocked"
        else:
            over = "went_out" if "went_out" in types else "target"
    tally.round_endings[over] += 1
    tally.scoreless += after.scoreless_rounds > before.scoreless_rounds


if __name__ == "__main__":
    sys.exit(main())
