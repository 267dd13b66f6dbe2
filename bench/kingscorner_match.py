"""King's Corner: two players (levels or baselines) over seeded, paired deals, on the pure engine.

    python -m bench.kingscorner_match --a hard --b flatmc --players 2 --deals 60 --jobs 2

Each deal is played twice with the sides swapped (bench.match_stats.paired_schedule): with two
players A sits at seat 0 then seat 1; with four, A holds seats 0 and 2 then 1 and 3 (two of each).
A game's score for A is the share of its winners that are A's seats (1 a win, 0 a loss, a shared
stalemate win split). Prints A's score with its 95% Wilson interval, A's wins, losses and shared
games, and each side's time per action, wall clock and CPU, mean and p99 (CPU tells a slow player
from a busy machine), with the machine's load before and after.

Players: `easy`, `normal`, `hard` (kingscorner.ai.choose_move with ``--budget-ms``; `hard` also
``--hard-iterations`` to fix its iteration count, which the clock still caps at the budget or at
``--hard-cap-ms``) and the
baselines of bench.kingscorner_baselines (`flatmc`). Every action's seed comes from one
``random.Random(f"{seed}:{game}")``, so a run is reproducible where the clock does not cut `hard`
short. ``--jobs`` plays games in that many processes.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from time import perf_counter, process_time

from bench.kingscorner_baselines import BASELINES
from bench.match_stats import PairedGame, Timing, machine_line, paired_schedule, wilson_interval
from kingscorner.ai import LEVELS, choose_move, observe
from kingscorner.ai_search import hard_move
from kingscorner.rules import RULES, EndTurn, GameState, Move, PlayCard

MAX_ACTIONS = 20_000


@dataclass(frozen=True)
class Player:
    name: str
    budget_ms: int
    hard_iterations: int | None = None
    hard_cap_ms: int | None = None

    def move(self, state: GameState, seed: int) -> Move:
        if self.name in BASELINES:
            return BASELINES[self.name](state, seed=seed)
        if self.name == "hard" and self.hard_iterations is not None:
            deadline = perf_counter() + (self.hard_cap_ms or self.budget_ms) / 1000
            return hard_move(
                observe(state), seed=seed, iterations=self.hard_iterations, deadline=deadline
            )
        return choose_move(state, level=self.name, seed=seed, budget_ms=self.budget_ms)


@dataclass
class Result:
    score: float
    winners: list[int]
    reason: str
    timing: dict[str, Timing] = field(default_factory=dict)
    turns: dict[str, int] = field(default_factory=dict)
    held_back: dict[str, int] = field(default_factory=dict)
    """Turns a side ended while it could still play a card from its hand."""


def play_game(players: dict[str, Player], game: PairedGame, index: int, seed: int) -> Result:
    state = RULES.new_game(len(game.lineup), seed=game.seed, options={})
    rng = random.Random(f"{seed}:{index}")
    timing = {"a": Timing(), "b": Timing()}
    turns = {"a": 0, "b": 0}
    held_back = {"a": 0, "b": 0}
    for _ in range(MAX_ACTIONS):
        seat = RULES.to_move(state)
        if seat is None:
            break
        side = game.lineup[seat]
        wall, cpu = perf_counter(), process_time()
        move = players[side].move(state, rng.getrandbits(63))
        timing[side].record(perf_counter() - wall, process_time() - cpu)
        if isinstance(move, EndTurn):
            turns[side] += 1
            held_back[side] += any(isinstance(m, PlayCard) for m in RULES.legal_moves(state))
        state = RULES.play(state, move)
    else:
        raise RuntimeError(f"Deal {game.seed} did not end in {MAX_ACTIONS} actions.")
    outcome = RULES.outcome(state)
    assert outcome is not None
    share = sum(1 for seat in outcome.winners if game.lineup[seat] == "a") / len(outcome.winners)
    return Result(share, outcome.winners, outcome.reason, timing, turns, held_back)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [*LEVELS, *BASELINES]
    parser.add_argument("--a", choices=names, default="hard")
    parser.add_argument("--b", choices=names, default="flatmc")
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--deals", type=int, default=60, help="each played twice, sides swapped")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget-ms", type=int, default=1000, help="the levels' budget_ms")
    parser.add_argument("--hard-iterations", type=int, default=None)
    parser.add_argument(
        "--hard-cap-ms", type=int, default=None, help="with --hard-iterations: the clock's cap"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes playing games")
    args = parser.parse_args(argv)

    players = {
        side: Player(name, args.budget_ms, args.hard_iterations, args.hard_cap_ms)
        for side, name in (("a", args.a), ("b", args.b))
    }
    schedule = paired_schedule(deals=args.deals, seats=args.players, seed=args.seed)
    print(f"King's Corner: A={args.a} vs B={args.b}, {args.players} players, {args.deals} paired")
    print(f"  deals ({len(schedule)} games), seed {args.seed}, budget {args.budget_ms} ms", end="")
    print(f", hard iterations {args.hard_iterations or 'from the budget'}, {args.jobs} jobs")
    print(f"  before: {machine_line()}", flush=True)
    started = time.perf_counter()
    results: list[Result] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for game, result in zip(
            schedule,
            pool.map(
                play_game,
                [players] * len(schedule),
                schedule,
                range(len(schedule)),
                [args.seed] * len(schedule),
            ),
            strict=True,
        ):
            results.append(result)
            # One line a game, so a run stopped early still tells its score so far.
            so_far = sum(r.score for r in results)
            print(
                f"  deal {game.deal} {''.join(game.lineup)}: A {result.score:.2f}, "
                f"{result.reason}; A {so_far:.1f}/{len(results)}",
                flush=True,
            )
    wall = time.perf_counter() - started

    score = sum(result.score for result in results)
    low, high = wilson_interval(score, len(results))
    wins = sum(1 for result in results if result.score == 1)
    losses = sum(1 for result in results if result.score == 0)
    reasons: dict[str, int] = {}
    for result in results:
        reasons[result.reason] = reasons.get(result.reason, 0) + 1
    print(f"  A scores {score / len(results):.3f} (95% interval {low:.3f}-{high:.3f})")
    print(f"  A wins {wins}, loses {losses}, shares {len(results) - wins - losses}; {reasons}")
    for side in ("a", "b"):
        total = Timing()
        for result in results:
            total.wall += result.timing[side].wall
            total.cpu += result.timing[side].cpu
        turns = sum(result.turns[side] for result in results)
        held = sum(result.held_back[side] for result in results)
        print(f"  {side.upper()} {players[side].name:<7} {total.summary()}")
        print(f"    ended {held} of {turns} turns ({held / max(1, turns):.0%}) with a card to play")
    print(f"  after: {machine_line()}; wall time {wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
