"""Computer players for King's Corner. Pure: no Django, no I/O, no global random, and no clock
but `hard`'s deadline.

`choose_move(state, level=..., seed=..., budget_ms=...)` returns the *next single action* of the
seat to move; the platform calls it once per action, and a computer's turn is the sequence of its
answers up to ``end_turn``.

Both players decide from an `Observation` made from ``RULES.view(state, seat)`` — the very
projection that seat's human would get: its own hand, every pile, the hand sizes and the stock's
size. They never see another hand or the order of the stock.

Levels
------
``easy``
    The original site's player: plays a random legal *card* (``random.Random(seed)``) one at a time,
    never moves piles, and ends its turn when no card can be played.
``normal``
    Plans the whole turn. A depth-first search with a transposition set walks every reachable end
    of turn (actions are irreversible, so the tree is finite): card plays, Kings into corners, whole
    pile moves that free foundations, and cards dropped into empty foundations. A plan that empties
    the hand wins outright. Otherwise each end position is scored: cards left in hand (Kings and
    cards that nothing can ever go under weigh more), minus the expected plays the position leaves
    the opponents — empty foundations, empty corners while Kings are out, and tops whose fitting
    cards are still unseen — weighted by how close each opponent is to going out. The first action
    of the best plan is returned; the next call plans again from the new position and, the search
    being deterministic, continues the same plan. ``budget_ms`` caps the search by node count
    (``NODES_PER_MS`` nodes per millisecond) rather than by the clock, so answers never depend on
    the machine's speed.
``hard``
    Information-set Monte-Carlo tree search over determinizations of what the seat cannot see
    (kingscorner.ai_search), weighing when to hold cards back. ``ITERATIONS_PER_MS`` iterations
    per millisecond of ``budget_ms`` are its deterministic core (the same seed gives the same
    action), and the clock caps them: it stops at ``budget_ms`` whatever the machine's load. So
    "no clock" above holds for ``easy`` and ``normal``; ``hard`` reads the clock for its deadline.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from time import perf_counter
from typing import Final

from kingscorner.ai_search import hard_move
from kingscorner.cards import (
    ACE,
    CORNERS,
    FOUNDATIONS,
    KING,
    PILE_NAMES,
    fits_on,
    parse_card,
    rank_of,
)
from kingscorner.observation import Observation
from kingscorner.rules import END_TURN, RULES, GameState, Move, MovePile, PlayCard

__all__ = [
    "ITERATIONS_PER_MS",
    "LEVELS",
    "NODES_PER_MS",
    "Observation",
    "choose_move",
    "observe",
    "plan_turn",
]

LEVELS: Final = ("easy", "normal", "hard")
NODES_PER_MS: Final = 20
MIN_NODES: Final = 2_000
ITERATIONS_PER_MS: Final = 4
"""`hard`'s iterations per millisecond of budget: about 70% of an idle core's pace, so on an idle
machine the count, not the clock, ends the search (and the seed decides the answer)."""
SAFETY: Final = 0.93
"""`hard` stops at this share of its budget: the clock is read every few iterations and the answer
still has to get back to the platform."""

# Evaluation weights (a card in hand = CARD; the rest are relative to it).
CARD: Final = 100.0
KING_EXTRA: Final = 45.0
DEAD_EXTRA: Final = 30.0
HALF_DEAD_EXTRA: Final = 8.0
OPPONENT_CARD: Final = 45.0
EMPTY_FOUNDATION: Final = 1.6
OPPONENT_DECAY: Final = 0.5
WIN: Final = float("inf")

_EMPTY: Final = -1


def observe(state: GameState) -> Observation:
    """The seat to move's `Observation`, made from the same view its human player would get."""
    seat = RULES.to_move(state)
    if seat is None:
        raise ValueError("The game is over: nobody is to move.")
    view = RULES.view(state, seat)

    def cards(names: Sequence[str]) -> tuple[int, ...]:
        return tuple(card for card in map(parse_card, names) if card is not None)

    return Observation(
        seat=seat,
        hand=cards(view["hand"]),
        piles=tuple(cards(view["piles"][name]) for name in PILE_NAMES),
        hand_sizes=tuple(view["hand_sizes"]),
        stock=view["stock"],
        plays_this_turn=view["plays_this_turn"],
        idle_turns=view["idle_turns"],
    )


def choose_move(state: GameState, *, level: str, seed: int, budget_ms: int) -> Move:
    """The next action of the seat to move at `level` (one of `LEVELS`)."""
    started = perf_counter()
    observation = observe(state)
    if level == "hard":
        return hard_move(
            observation,
            seed=seed,
            iterations=max(1, budget_ms * ITERATIONS_PER_MS),
            deadline=started + max(0, budget_ms) * SAFETY / 1000,
        )
    if level == "easy":
        return _easy(observation, seed)
    if level == "normal":
        plan = plan_turn(observation, node_limit=max(MIN_NODES, budget_ms * NODES_PER_MS))
        return plan[0] if plan else END_TURN
    raise ValueError(f"King's Corner computer players are {', '.join(LEVELS)}, not {level!r}.")


def _easy(observation: Observation, seed: int) -> Move:
    tops = [pile[-1] if pile else None for pile in observation.piles]
    plays: list[Move] = []
    for card in observation.hand:
        for index, top in enumerate(tops):
            if top is None:
                if index in FOUNDATIONS or rank_of(card) == KING:
                    plays.append(PlayCard(card, index))
            elif fits_on(card, top):
                plays.append(PlayCard(card, index))
    return random.Random(seed).choice(plays) if plays else END_TURN


# --- the normal player's search ---------------------------------------------------------------


def _children(card: int) -> tuple[int, ...]:
    """The two cards that go on `card` (none on an ace)."""
    rank = rank_of(card)
    if rank == ACE:
        return ()
    red = card & 3 in (1, 2)
    suits = (0, 3) if red else (1, 2)
    return tuple(4 * (rank - 1) + suit for suit in suits)


def _parents(card: int) -> tuple[int, ...]:
    """The two cards `card` goes on (none for a King)."""
    rank = rank_of(card)
    if rank == KING:
        return ()
    red = card & 3 in (1, 2)
    suits = (0, 3) if red else (1, 2)
    return tuple(4 * (rank + 1) + suit for suit in suits)


class _Planner:
    """Depth-first search over one turn's action sequences, from one seat's observation."""

    def __init__(self, observation: Observation, node_limit: int) -> None:
        self.node_limit = node_limit
        self.nodes = 0
        self.seen: set[tuple[int, tuple[int, ...], tuple[int, ...]]] = set()
        self.best_score = -WIN
        self.best_path: list[Move] = []
        self.path: list[Move] = []
        hand = observation.hand
        tops = {pile[-1] for pile in observation.piles if pile}
        visible = set(hand) | {card for pile in observation.piles for card in pile}
        unseen = [card for card in range(52) if card not in visible]
        unseen_count = max(1, len(unseen))
        unseen_set = set(unseen)

        # How much each opponent threatens, next seat first: chance per unseen card of holding it.
        seats = len(observation.hand_sizes)
        pressure = 0.0
        next_threat = 0.0
        for step in range(1, seats):
            size = observation.hand_sizes[(observation.seat + step) % seats]
            threat = (size / unseen_count) * (1.0 + 2.0 / max(1, size))
            pressure += threat * OPPONENT_DECAY ** (step - 1)
            if step == 1:
                next_threat = 1.0 + 2.0 / max(1, size)
        # Cost of leaving a top card: expected opponent plays onto it.
        self.top_cost = [0.0] * 52
        for card in range(52):
            fitting = sum(1 for child in _children(card) if child in unseen_set)
            self.top_cost[card] = OPPONENT_CARD * pressure * fitting
        unseen_kings = sum(1 for card in unseen if rank_of(card) == KING)
        self.empty_corner_cost = OPPONENT_CARD * pressure * unseen_kings
        self.empty_foundation_cost = OPPONENT_CARD * EMPTY_FOUNDATION * next_threat
        # Cost of keeping a card: harder to shed later when nothing can take it.
        self.card_cost = [0.0] * 52
        for card in hand:
            cost = CARD
            if rank_of(card) == KING:
                cost += KING_EXTRA
            else:
                live = sum(
                    1 for parent in _parents(card) if parent in unseen_set or parent in tops
                ) + sum(1 for parent in _parents(card) if parent in hand)
                if live == 0:
                    cost += DEAD_EXTRA
                elif live == 1:
                    cost += HALF_DEAD_EXTRA
            self.card_cost[card] = cost

    def evaluate(self, hand_cost: float, piles: list[int]) -> float:
        cost = hand_cost
        for index, code in enumerate(piles):
            if code == _EMPTY:
                cost += self.empty_foundation_cost if index < 4 else self.empty_corner_cost
            else:
                cost += self.top_cost[code & 63]
        return -cost

    def search(self, hand: int, piles: list[int], hand_cost: float) -> bool:
        """Explore from here; True once a plan that empties the hand is found."""
        key = (
            hand,
            tuple(sorted(piles[:4])),
            tuple(sorted(piles[4:])),
        )
        if key in self.seen:
            return False
        self.seen.add(key)
        self.nodes += 1
        if hand == 0:
            self.best_score = WIN
            self.best_path = list(self.path)
            return True
        score = self.evaluate(hand_cost, piles)
        if score > self.best_score:
            self.best_score = score
            self.best_path = list(self.path)
        if self.nodes >= self.node_limit:
            return False
        for move in self.moves(hand, piles):
            if isinstance(move, PlayCard):
                card, target = move.card, move.to
                before = piles[target]
                piles[target] = (card << 6 | card) if before == _EMPTY else (before & ~63) | card
                self.path.append(move)
                done = self.search(hand & ~(1 << card), piles, hand_cost - self.card_cost[card])
                self.path.pop()
                piles[target] = before
            else:
                source, target = move.source, move.target
                moving, before = piles[source], piles[target]
                piles[target] = moving if before == _EMPTY else (before & ~63) | (moving & 63)
                piles[source] = _EMPTY
                self.path.append(move)
                done = self.search(hand, piles, hand_cost)
                self.path.pop()
                piles[source], piles[target] = moving, before
            if done:
                return True
            if self.nodes >= self.node_limit:
                return False
        return False

    def moves(self, hand: int, piles: list[int]) -> list[Move]:
        """Actions worth trying, most promising first.

        Empty foundations are interchangeable, and so are empty corners: only the first of each is
        tried.
        """
        cards = [card for card in range(52) if hand >> card & 1]
        onto: list[Move] = []
        kings: list[Move] = []
        pile_moves: list[Move] = []
        drops: list[tuple[float, Move]] = []
        empty_foundation = next((i for i in FOUNDATIONS if piles[i] == _EMPTY), None)
        empty_corner = next((i for i in CORNERS if piles[i] == _EMPTY), None)
        for index, code in enumerate(piles):
            if code == _EMPTY:
                continue
            top = code & 63
            for card in cards:
                if fits_on(card, top):
                    onto.append(PlayCard(card, index))
        for card in cards:
            if rank_of(card) == KING and empty_corner is not None:
                kings.append(PlayCard(card, empty_corner))
            elif empty_foundation is not None:
                # Drop first what starts a chain from the hand, then what is hardest to keep.
                chain = sum(1 for other in cards if fits_on(other, card))
                drops.append(
                    (-(chain * 1000 + self.card_cost[card]), PlayCard(card, empty_foundation))
                )
        for source in FOUNDATIONS:
            code = piles[source]
            if code == _EMPTY:
                continue
            bottom = code >> 6
            for target, other in enumerate(piles):
                if target == source:
                    continue
                if other == _EMPTY:
                    if target == empty_corner and rank_of(bottom) == KING:
                        pile_moves.append(MovePile(source, target))
                elif fits_on(bottom, other & 63):
                    pile_moves.append(MovePile(source, target))
        drops.sort(key=lambda item: item[0])
        return onto + kings + pile_moves + [move for _, move in drops]


def plan_turn(observation: Observation, *, node_limit: int = 50_000) -> list[Move]:
    """The best sequence of actions found for the rest of this turn (empty: end the turn now)."""
    planner = _Planner(observation, node_limit)
    hand = 0
    for card in observation.hand:
        hand |= 1 << card
    piles = [(pile[0] << 6 | pile[-1]) if pile else _EMPTY for pile in observation.piles]
    hand_cost = sum(planner.card_cost[card] for card in observation.hand)
    planner.search(hand, piles, hand_cost)
    return planner.best_path
