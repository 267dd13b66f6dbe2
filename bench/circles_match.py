"""Circles: computer levels and the classic engine play paired games, on the pure engine only.

    python -m bench.circles_match --a expert --b classic --pairs 10 --budget-ms 1000 [--jobs 2]
    python -m bench.circles_match --a hard --b medium --pairs 25 --opening-plies 0

A player is a level (`circles.ai.LEVELS`, thinking `--budget-ms` a move) or ``classic``, the
baseline of `bench.circles_classic` (``--classic-depth`` plies, exact from ``--classic-exact``
empties, no clock). Each pair of games starts from one opening — ``--opening-plies`` random
legal moves from the start, drawn from the pair's seed (`bench.match_stats.paired_schedule`) —
and is played twice with the colours swapped, so an opening that favours a colour cancels out.
Every computer move gets its own seed from the pair's seed and the game, so a run is
reproducible wherever depth or node counts, not the clock, end the thinking.

Prints a line per game, then A's score (a win 1, a tie 1/2) with its 95% Wilson interval, the
wins, losses and ties, the mean disc margin, each player's wall and CPU time per move (mean and
p99, `bench.match_stats.Timing`) and share of moves over 110% of the budget, and the machine's
load before and after. ``--jobs N`` plays the games in N processes; ``--think-clock cpu`` gives
the levels a CPU-time budget (``time.process_time``) instead of the wall clock, to compare
strength on a busy machine (``wall``, the default, is how the site plays).
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from bench.circles_classic import ClassicEngine
from bench.match_stats import PairedGame, Timing, machine_line, paired_schedule, wilson_interval
from circles.ai import LEVELS, choose_move
from circles.rules import RULES, GameState

PLAYERS = (*LEVELS, "classic")
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass(frozen=True)
class Setup:
    players: dict[str, str]  # "a"/"b" -> player
    budget_ms: int
    opening_plies: int
    classic_depth: int
    classic_exact: int
    think_clock: str


@dataclass
class GameResult:
    a_seat: int
    opening: str
    discs: tuple[int, int]  # (A's, B's)
    wall: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)


def opening(seed: int, plies: int) -> GameState:
    """The start position after `plies` random legal moves drawn from `seed`."""
    rng = random.Random(seed)
    state = RULES.new_game(2, seed=0, options={})
    for _ in range(plies):
        if RULES.to_move(state) is None:
            break
        state = RULES.play(state, rng.choice(RULES.legal_moves(state)))
    return state


def play_game(game: PairedGame, index: int, setup: Setup) -> GameResult:
    """Play `game` (its opening, then the lineup's players to the end)."""
    state = opening(game.seed, setup.opening_plies)
    rng = random.Random(f"{game.seed}:{index}")
    a_seat = game.lineup.index("a")
    result = GameResult(a_seat, RULES.record(state), (0, 0), {"a": [], "b": []}, {"a": [], "b": []})
    clock = CLOCKS[setup.think_clock]
    while (seat := RULES.to_move(state)) is not None:
        side = game.lineup[seat]
        player = setup.players[side]
        started, started_cpu = time.perf_counter(), time.process_time()
        if player == "classic":
            engine = ClassicEngine(depth=setup.classic_depth, exact_empties=setup.classic_exact)
            move = engine.choose(state.position.own, state.position.opponent)
        else:
            move = choose_move(
                state,
                level=player,
                seed=rng.getrandbits(63),
                budget_ms=setup.budget_ms,
                clock=clock,
            )
        result.wall[side].append(time.perf_counter() - started)
        result.cpu[side].append(time.process_time() - started_cpu)
        state = RULES.play(state, move)
    outcome = RULES.outcome(state)
    assert outcome is not None
    result.discs = (outcome.scores[a_seat], outcome.scores[1 - a_seat])
    return result


def _play(args: tuple[PairedGame, int, Setup]) -> GameResult:
    return play_game(*args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", choices=PLAYERS, default="expert", help="player A")
    parser.add_argument("--b", choices=PLAYERS, default="classic", help="player B")
    parser.add_argument("--pairs", type=int, default=10, help="openings, each played twice")
    parser.add_argument("--budget-ms", type=int, default=1000, help="the levels' budget_ms")
    parser.add_argument("--opening-plies", type=int, default=4, help="random moves to start")
    parser.add_argument("--classic-depth", type=int, default=10)
    parser.add_argument("--classic-exact", type=int, default=18)
    parser.add_argument("--think-clock", choices=sorted(CLOCKS), default="wall")
    parser.add_argument("--seed", type=int, default=1, help="seed of the openings")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.jobs < 1:
        parser.error("--pairs and --jobs must be at least 1")

    setup = Setup(
        players={"a": args.a, "b": args.b},
        budget_ms=args.budget_ms,
        opening_plies=args.opening_plies,
        classic_depth=args.classic_depth,
        classic_exact=args.classic_exact,
        think_clock=args.think_clock,
    )
    names = {
        side: f"classic {args.classic_depth}/{args.classic_exact}"
        if player == "classic"
        else player
        for side, player in setup.players.items()
    }
    schedule = paired_schedule(deals=args.pairs, seats=2, seed=args.seed)
    print(
        f"A={names['a']} vs B={names['b']}: {len(schedule)} games ({args.pairs} openings of "
        f"{args.opening_plies} random plies, colours swapped), budget {args.budget_ms} ms on the "
        f"{args.think_clock} clock, seed {args.seed}, {args.jobs} jobs",
        flush=True,
    )
    print(f"before: {machine_line()}", flush=True)
    jobs = [(game, index, setup) for index, game in enumerate(schedule)]
    started = time.perf_counter()
    score = 0.0
    wins = losses = ties = 0
    margins: list[int] = []
    timing = {"a": Timing(), "b": Timing()}
    if args.jobs == 1:
        results = map(_play, jobs)
    else:
        pool = ProcessPoolExecutor(args.jobs)
        results = pool.map(_play, jobs)
    for index, result in enumerate(results):
        a_discs, b_discs = result.discs
        margins.append(a_discs - b_discs)
        if a_discs > b_discs:
            wins, score, outcome = wins + 1, score + 1, "win"
        elif a_discs < b_discs:
            losses, outcome = losses + 1, "loss"
        else:
            ties, score, outcome = ties + 1, score + 0.5, "tie"
        for side in "ab":
            for wall, cpu in zip(result.wall[side], result.cpu[side], strict=True):
                timing[side].record(wall, cpu)
        if not args.quiet:
            colour = "white" if result.a_seat == 0 else "black"
            print(
                f"game {index + 1:>3}: {result.opening or '-':<10} A ({colour}) "
                f"{a_discs:>2}-{b_discs:<2} {outcome:<4}  [{wins}-{losses}-{ties}]",
                flush=True,
            )
    if args.jobs > 1:
        pool.shutdown()
    elapsed = time.perf_counter() - started

    games = wins + losses + ties
    low, high = wilson_interval(score, games)
    print(
        f"A ({names['a']}) against B ({names['b']}): score {score / games:.3f} "
        f"(95% interval {low:.2f}-{high:.2f}) over {games} games: {wins} wins, {losses} losses, "
        f"{ties} ties; mean disc margin {sum(margins) / games:+.1f}"
    )
    for side in "ab":
        late = sum(wall > 1.1 * args.budget_ms / 1000 for wall in timing[side].wall) / max(
            1, len(timing[side].wall)
        )
        print(f"{side.upper()} ({names[side]}): {timing[side].summary()}, {late:.1%} over 110%")
    print(f"after: {machine_line()}; match time {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
