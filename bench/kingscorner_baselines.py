"""A reference player for King's Corner's match harness (not a product level): flat Monte-Carlo.

Issue 24's naive player, which beat `normal`: for each decision, `DETERMINIZATIONS` deals of the
unseen cards drawn from the seat's own observation (kingscorner.ai.observe: its hand, the piles,
the counts; never another hand or the stock's order), and for each deal every candidate action
played once, then the game played out to its end by uniformly random legal actions (ending the
turn among them). The action with the best mean result (a win 1, a shared win its share) is
chosen; ties go to the first in the order of `legal_actions`. No tree, no look-ahead beyond the
random playouts, no heuristics. Seeded: the same seed gives the same action. `flatmc_easy` is the
same player with `easy`'s playouts (a random card that fits until none does, then the turn ends),
another reading of "played out at random".

It uses the `hard` player's fast simulator (kingscorner.ai_search: `Sim`, `determinize`,
`legal_actions`), which tests/kingscorner/test_ai_search.py checks against the rules engine, so
both sides of a match play by the same rules at the same speed per playout.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Final

from kingscorner.ai import observe
from kingscorner.ai_search import END, PILE_BASE, Sim, action_move, determinize, legal_actions
from kingscorner.rules import END_TURN, GameState, Move

__all__ = ["BASELINES", "DETERMINIZATIONS", "flat_monte_carlo", "random_playout"]

DETERMINIZATIONS: Final = 32


def random_playout(sim: Sim, rng: random.Random) -> list[int]:
    """Play `sim` to its end by uniformly random legal actions; the winners."""
    while not sim.over():
        actions = legal_actions(sim)
        sim.play(actions[int(rng.random() * len(actions))])
    return sim.winners()


def easy_playout(sim: Sim, rng: random.Random) -> list[int]:
    """Play `sim` to its end as `easy` plays: a random card that can go somewhere (never a pile
    move) until none can, then end the turn; the winners."""
    while not sim.over():
        actions = [action for action in legal_actions(sim) if action < PILE_BASE]
        sim.play(actions[int(rng.random() * len(actions))] if actions else END)
    return sim.winners()


def flat_monte_carlo(
    state: GameState,
    *,
    seed: int,
    determinizations: int = DETERMINIZATIONS,
    playout: Callable[[Sim, random.Random], list[int]] = random_playout,
) -> Move:
    """The seat to move's action by flat Monte-Carlo over `determinizations` deals."""
    observation = observe(state)
    rng = random.Random(seed)
    seat = observation.seat
    candidates: list[int] | None = None
    totals: list[float] = []
    for _ in range(determinizations):
        deal = determinize(observation, rng)
        if candidates is None:
            # The seat's own actions depend only on what it sees: the same in every deal.
            candidates = legal_actions(deal)
            if len(candidates) == 1:
                return END_TURN
            totals = [0.0] * len(candidates)
        for index, action in enumerate(candidates):
            game = deal.copy()
            game.play(action)
            winners = playout(game, rng)
            if seat in winners:
                totals[index] += 1 / len(winners)
    assert candidates is not None
    best = max(range(len(candidates)), key=lambda index: (totals[index], -index))
    return action_move(candidates[best])


BASELINES: Final = {
    "flatmc": flat_monte_carlo,
    "flatmc_easy": partial(flat_monte_carlo, playout=easy_playout),
}
"""The harness's baseline players by name."""
