"""CirKis: one computer level against another over paired games, on the pure engine only.

    python -m bench.cirkis_match --a hard --b normal --pairs 20 --budget-ms 1000 [--jobs 2]
    python -m bench.cirkis_match --a easy --b easy --seats 3 --pairs 12 --long-game

CirKis has no chance: a game differs from another only by the seeds the computers get. Each pair
of games shares one seed (`bench.match_stats.paired_schedule`) with the sides swapped (two
players: A B, then B A; more: A and B alternating around the table), and every computer move gets
its own seed from a `random.Random` of the pair's seed and the seat, so a run is reproducible
wherever the budget, not the clock, ends the thinking.

Prints A's score (a win 1, a shared win 1/winners, over the games) with its 95% Wilson interval,
the wins, losses and shared wins, the endings, the mean points (B: the best B seat), the wall
clock and CPU time per move of each level (mean and p99, `bench.match_stats.Timing`) with the
share of moves over the budget and over the budget + 20%, and the machine's load before and
after. Long games also print the rounds played, how they ended, the scoreless rounds and the final
totals below 100.

``--jobs N`` plays the games in N worker processes (``1``: in this process); every move is timed
inside the process that thinks it. ``--think-clock cpu`` gives the computers a CPU-time deadline
(``time.process_time``) instead of the wall clock, to compare strength on a busy machine; the
default ``wall`` is how the site plays.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from bench.match_stats import PairedGame, Timing, machine_line, paired_schedule, wilson_interval
from cirkis.ai import LEVELS, choose_move
from cirkis.rules import LONG_TARGET, RULES, GameState

MAX_PLIES = 2_000
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass
class GameResult:
    a_seats: tuple[int, ...]
    scores: list[int]
    winners: list[int]
    reason: str
    wall: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)
    rounds: int = 0
    round_endings: Counter[str] = field(default_factory=Counter)
    scoreless: int = 0


@dataclass(frozen=True)
class Setup:
    levels: dict[str, str]  # "a"/"b" -> level
    budget_ms: int
    options: dict
    think_clock: str


def play_game(game: PairedGame, setup: Setup) -> GameResult:
    """Play one game of the schedule; time every move where it is thought."""
    levels = tuple(setup.levels[side] for side in game.lineup)
    clock = CLOCKS[setup.think_clock]
    seeds = [random.Random(f"{game.seed}-{seat}") for seat in range(len(levels))]
    state = RULES.new_game(len(levels), seed=0, options=setup.options)
    result = GameResult(
        a_seats=tuple(s for s, side in enumerate(game.lineup) if side == "a"),
        scores=[],
        winners=[],
        reason="",
    )
    for _ in range(MAX_PLIES):
        seat = RULES.to_move(state)
        if seat is None:
            break
        level = levels[seat]
        started, cpu = time.perf_counter(), time.process_time()
        move = choose_move(
            state,
            level=level,
            seed=seeds[seat].getrandbits(63),
            budget_ms=setup.budget_ms,
            clock=clock,
        )
        result.wall.setdefault(level, []).append(time.perf_counter() - started)
        result.cpu.setdefault(level, []).append(time.process_time() - cpu)
        after = RULES.play(state, move)
        if after.round != state.round or after.finished is not None:
            count_round(state, after, result)
        state = after
    else:
        raise RuntimeError(f"A game did not end in {MAX_PLIES} placements.")
    outcome = RULES.outcome(state)
    assert outcome is not None
    result.scores, result.winners, result.reason = outcome.scores, outcome.winners, outcome.reason
    return result


def count_round(before: GameState, after: GameState, result: GameResult) -> None:
    """Tally the round that the placement from `before` to `after` ended."""
    result.rounds += 1
    types = [event.type for event in after.events]
    over = next((e.reason for e in after.events if e.type == "round_over"), None)
    if over is None:  # the game ended with this round
        if types.count("lost_turn") == after.seats:
            over = "blocked"
        else:
            over = "went_out" if "went_out" in types else "target"
    result.round_endings[over] += 1
    result.scoreless += after.scoreless_rounds > before.scoreless_rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", choices=LEVELS, default="hard", help="the level measured")
    parser.add_argument("--b", choices=LEVELS, default="normal", help="its opponent")
    parser.add_argument("--pairs", type=int, default=20, help="pairs of games (sides swapped)")
    parser.add_argument("--seats", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--seed", type=int, default=1, help="seed of the pairs' seeds")
    parser.add_argument("--budget-ms", type=int, default=1000, help="the AI's budget_ms")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes playing games")
    parser.add_argument("--think-clock", choices=tuple(CLOCKS), default="wall")
    parser.add_argument("--center-ring", action="store_true", help="play the Center Ring option")
    parser.add_argument("--long-game", action="store_true", help="play the long game to 100")
    args = parser.parse_args(argv)

    setup = Setup(
        levels={"a": args.a, "b": args.b},
        budget_ms=args.budget_ms,
        options={"center_ring": args.center_ring, "long_game": args.long_game},
        think_clock=args.think_clock,
    )
    schedule = paired_schedule(deals=args.pairs, seats=args.seats, seed=args.seed)
    load_before = machine_line()
    started = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(play_game, schedule, [setup] * len(schedule)))
    else:
        results = [play_game(game, setup) for game in schedule]
    wall = time.perf_counter() - started
    report(args, setup, results, load_before, wall)
    return 0


def report(
    args: argparse.Namespace,
    setup: Setup,
    results: list[GameResult],
    load_before: str,
    wall: float,
) -> None:
    games = len(results)
    score = wins = shared = losses = 0.0
    points_a = points_b = 0
    reasons: Counter[str] = Counter()
    timing: dict[str, Timing] = {}
    for result in results:
        won = [seat for seat in result.winners if seat in result.a_seats]
        if won:
            score += len(won) / len(result.winners)
            if len(result.winners) == len(won):
                wins += 1
            else:
                shared += 1
        else:
            losses += 1
        reasons[result.reason] += 1
        points_a += max(result.scores[s] for s in result.a_seats)
        points_b += max(s for seat, s in enumerate(result.scores) if seat not in result.a_seats)
        for level, walls in result.wall.items():
            for w, c in zip(walls, result.cpu[level], strict=True):
                timing.setdefault(level, Timing()).record(w, c)
    low, high = wilson_interval(score, games)
    print(
        f"CirKis: A={args.a} vs B={args.b}, {games} {args.seats}-player games ({args.pairs} pairs,"
        f" sides swapped), budget {args.budget_ms} ms on the {args.think_clock} clock, seed"
        f" {args.seed}, options {setup.options}, {args.jobs} process(es)"
    )
    print(f"  before: {load_before}")
    print(f"  after:  {machine_line()}")
    print(f"  A score  {score / max(1, games):.3f}  (95% interval {low:.3f}-{high:.3f})")
    print(f"  A wins {wins:.0f}, losses {losses:.0f}, shared wins {shared:.0f}")
    print(f"  endings  {dict(sorted(reasons.items()))}")
    print(f"  mean points A {points_a / max(1, games):.1f}, B {points_b / max(1, games):.1f}")
    if args.long_game:
        rounds = sum(r.rounds for r in results)
        endings = sum((r.round_endings for r in results), Counter())
        print(
            f"  rounds   {rounds} (mean {rounds / max(1, games):.1f}), ended"
            f" {dict(sorted(endings.items()))}, scoreless {sum(r.scoreless for r in results)}"
        )
        below = [r.scores for r in results if max(r.scores) < LONG_TARGET]
        print(f"  totals below 100 at the end: {below}")
    budget_s = args.budget_ms / 1000
    for level in dict.fromkeys((args.a, args.b)):
        kept = timing.get(level)
        if kept is None:
            continue
        over = sum(w > budget_s for w in kept.wall)
        far_over = sum(w > budget_s * 1.2 for w in kept.wall)
        print(
            f"  {level:<7} {kept.summary()}; max {max(kept.wall) * 1000:.0f} ms;"
            f" over the budget {over}, over budget + 20% {far_over}"
        )
    print(f"  wall time {wall:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
