"""King's Corner's `hard` player: information-set Monte-Carlo tree search from one seat's view.

Pure Python: no Django, no I/O, no global random. The one exception to the engines' purity is the
deadline: `time.perf_counter()` is read every few iterations so a search never thinks past its
budget (greycircle.games.engine.ComputerPlayer).

What it knows
-------------
Only an `Observation` (kingscorner.observation): its own hand, every pile in full, the hand sizes,
the stock's size and the turn's counters. Each iteration *determinizes*: the unseen cards (the deck
minus its hand and the piles) are shuffled with the search's seeded RNG and dealt out, so many
to each opponent as it holds and the rest as the stock. The real hands and the stock's order are
never read, so two states with the same observation get the same answer for the same seed.

How it searches
---------------
Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012) with UCT: one tree of action
sequences, every seat's actions in it, each node scored for the seat that acted into it. A
determinization only allows the children its hands make legal; a child's *availability* counts
the iterations in which it could have been chosen, and replaces the parent's visits in the UCB
formula. Past the tree, a cheap greedy playout finishes the game (cards onto piles and Kings
into corners first, then pile moves that free a foundation, then a card into an empty
foundation, preferring one the hand can build on), and the winners share the reward.

The action set always includes ending the turn while cards could still be played: holding cards
back (not feeding the next player, keeping a card for an empty foundation) is where the naive
Monte-Carlo player of issue 24 beat `normal`. Empty foundations are interchangeable, and so are
empty corners: only the first of each is offered.

Limits: `iterations` is the deterministic core (the same seed and iteration count give the same
action); `deadline` caps it by the clock.
"""

from __future__ import annotations

import math
import random
from time import perf_counter
from typing import Final

from kingscorner.cards import KING, fits_on, rank_of
from kingscorner.observation import Observation
from kingscorner.rules import END_TURN, Move, MovePile, PlayCard

__all__ = [
    "END",
    "Sim",
    "action_move",
    "determinize",
    "greedy_playout",
    "hard_move",
    "legal_actions",
]

# Actions are small ints: card * 8 + pile (a card play), PILE_BASE + source * 8 + target (a pile
# move), END (end the turn).
PILE_BASE: Final = 416
END: Final = 480
EXPLORATION: Final = 0.7
CLOCK_EVERY: Final = 8
"""Iterations between two readings of the clock."""
EMPTY: Final = -1

# The cards that go on each card (none on an ace), and which card fits on which.
CHILDREN: Final = tuple(
    tuple(child for child in range(52) if fits_on(child, card)) for card in range(52)
)
FITS: Final = tuple(tuple(fits_on(card, top) for top in range(52)) for card in range(52))
IS_KING: Final = tuple(rank_of(card) == KING for card in range(52))


class Sim:
    """A mutable, fully known game for the search: only each pile's bottom and top matter."""

    __slots__ = ("bottoms", "hands", "idle", "owner", "plays", "seats", "stock", "tops", "turn")

    def __init__(
        self,
        hands: list[list[int]],
        bottoms: list[int],
        tops: list[int],
        stock: list[int],
        turn: int,
        plays: int,
        idle: int,
    ) -> None:
        self.hands = hands
        self.bottoms = bottoms
        self.tops = tops
        self.stock = stock  # the last card is the top, drawn next
        self.turn = turn
        self.plays = plays
        self.idle = idle
        self.seats = len(hands)
        self.owner = [EMPTY] * 52
        for seat, hand in enumerate(hands):
            for card in hand:
                self.owner[card] = seat

    def copy(self) -> Sim:
        return Sim(
            [list(hand) for hand in self.hands],
            list(self.bottoms),
            list(self.tops),
            list(self.stock),
            self.turn,
            self.plays,
            self.idle,
        )

    def over(self) -> bool:
        return self.idle >= self.seats or not all(self.hands)

    def winners(self) -> list[int]:
        """The seats that won a finished game (one out, or the lowest penalties)."""
        for seat, hand in enumerate(self.hands):
            if not hand:
                return [seat]
        totals = [sum(10 if IS_KING[card] else 1 for card in hand) for hand in self.hands]
        best = min(totals)
        return [seat for seat, total in enumerate(totals) if total == best]

    def play(self, action: int) -> None:
        if action == END:
            seat = self.turn
            if self.stock:
                card = self.stock.pop()
                self.hands[seat].append(card)
                self.owner[card] = seat
                self.idle = 0
            elif self.plays == 0:
                self.idle += 1
            else:
                self.idle = 0
            self.turn = (seat + 1) % self.seats
            self.plays = 0
            return
        self.plays += 1
        self.idle = 0
        if action < PILE_BASE:
            card, pile = action >> 3, action & 7
            self.hands[self.turn].remove(card)
            self.owner[card] = EMPTY
            if self.tops[pile] == EMPTY:
                self.bottoms[pile] = card
            self.tops[pile] = card
            return
        source, target = (action - PILE_BASE) >> 3, (action - PILE_BASE) & 7
        if self.tops[target] == EMPTY:
            self.bottoms[target] = self.bottoms[source]
        self.tops[target] = self.tops[source]
        self.bottoms[source] = self.tops[source] = EMPTY


def legal_actions(sim: Sim) -> list[int]:
    """The seat to move's actions (one empty foundation, and one empty corner, stands for all)."""
    seat = sim.turn
    owner = sim.owner
    tops = sim.tops
    bottoms = sim.bottoms
    actions: list[int] = []
    empty_foundation = empty_corner = EMPTY
    for pile in range(8):
        top = tops[pile]
        if top == EMPTY:
            if pile < 4:
                if empty_foundation == EMPTY:
                    empty_foundation = pile
            elif empty_corner == EMPTY:
                empty_corner = pile
            continue
        for card in CHILDREN[top]:
            if owner[card] == seat:
                actions.append(card * 8 + pile)
    for card in sim.hands[seat]:
        if empty_foundation != EMPTY:
            actions.append(card * 8 + empty_foundation)
        if empty_corner != EMPTY and IS_KING[card]:
            actions.append(card * 8 + empty_corner)
    for source in range(4):
        bottom = bottoms[source]
        if bottom == EMPTY:
            continue
        fits = FITS[bottom]
        for target in range(8):
            top = tops[target]
            if target == source:
                continue
            if top == EMPTY:
                if target == empty_corner and IS_KING[bottom]:
                    actions.append(PILE_BASE + source * 8 + target)
            elif fits[top]:
                actions.append(PILE_BASE + source * 8 + target)
    actions.append(END)
    return actions


def action_move(action: int) -> Move:
    if action == END:
        return END_TURN
    if action < PILE_BASE:
        return PlayCard(action >> 3, action & 7)
    return MovePile((action - PILE_BASE) >> 3, (action - PILE_BASE) & 7)


def _greedy_action(sim: Sim, rng: random.Random) -> int:
    """The playout policy's action: what fits first, then pile moves, then a drop, else end."""
    seat = sim.turn
    owner = sim.owner
    tops = sim.tops
    hand = sim.hands[seat]
    onto: list[int] = []
    empty_foundation = empty_corner = EMPTY
    for pile in range(8):
        top = tops[pile]
        if top == EMPTY:
            if pile < 4:
                if empty_foundation == EMPTY:
                    empty_foundation = pile
            elif empty_corner == EMPTY:
                empty_corner = pile
            continue
        for card in CHILDREN[top]:
            if owner[card] == seat:
                onto.append(card * 8 + pile)
    if empty_corner != EMPTY:
        onto.extend(card * 8 + empty_corner for card in hand if IS_KING[card])
    if onto:
        return onto[int(rng.random() * len(onto))]
    bottoms = sim.bottoms
    for source in range(4):
        bottom = bottoms[source]
        if bottom == EMPTY:
            continue
        fits = FITS[bottom]
        for target in range(8):
            top = tops[target]
            if top == EMPTY:
                if target == empty_corner and IS_KING[bottom]:
                    return PILE_BASE + source * 8 + target
            elif target != source and fits[top]:
                return PILE_BASE + source * 8 + target
    if empty_foundation != EMPTY and hand:
        for card in hand:
            for child in CHILDREN[card]:
                if owner[child] == seat:
                    return card * 8 + empty_foundation
        return hand[int(rng.random() * len(hand))] * 8 + empty_foundation
    return END


def greedy_playout(sim: Sim, rng: random.Random) -> list[int]:
    """Play `sim` to its end with the greedy policy; the winners."""
    while not sim.over():
        sim.play(_greedy_action(sim, rng))
    return sim.winners()


def determinize(observation: Observation, rng: random.Random) -> Sim:
    """A game consistent with `observation`: the unseen cards shuffled into hands and stock."""
    seen = set(observation.hand)
    for pile in observation.piles:
        seen.update(pile)
    unseen = [card for card in range(52) if card not in seen]
    rng.shuffle(unseen)
    hands: list[list[int]] = []
    start = 0
    for seat, size in enumerate(observation.hand_sizes):
        if seat == observation.seat:
            hands.append(list(observation.hand))
        else:
            hands.append(unseen[start : start + size])
            start += size
    # A game holds the whole deck; a puzzle built with `position()` may hold less, and the
    # unseen cards it leaves out are left out of every deal too.
    stock = unseen[start : start + observation.stock]
    if len(stock) != observation.stock:
        raise ValueError("The observation counts more hidden cards than the deck has.")
    return Sim(
        hands,
        [pile[0] if pile else EMPTY for pile in observation.piles],
        [pile[-1] if pile else EMPTY for pile in observation.piles],
        stock,
        observation.seat,
        observation.plays_this_turn,
        observation.idle_turns,
    )


class _Node:
    __slots__ = ("available", "children", "reward", "seat", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # who acted into this node: its reward is theirs
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.available = 1
        self.reward = 0.0


def hard_move(
    observation: Observation, *, seed: int, iterations: int, deadline: float | None = None
) -> Move:
    """The action ISMCTS prefers after `iterations` iterations (fewer if `deadline` passes)."""
    rng = random.Random(seed)
    root_actions = legal_actions(determinize(observation, random.Random(0)))
    if len(root_actions) == 1:
        return END_TURN
    root = _Node(observation.seat)
    log = math.log
    sqrt = math.sqrt
    for iteration in range(iterations):
        if (
            deadline is not None
            and iteration
            and iteration % CLOCK_EVERY == 0
            and perf_counter() >= deadline
        ):
            break
        sim = determinize(observation, rng)
        node = root
        path = [root]
        while not sim.over():
            actions = legal_actions(sim)
            children = node.children
            untried = [action for action in actions if action not in children]
            if untried:
                action = untried[int(rng.random() * len(untried))]
                child = children[action] = _Node(sim.turn)
                sim.play(action)
                path.append(child)
                break
            best = -1.0
            chosen = actions[0]
            for action in actions:
                child = children[action]
                child.available += 1
                score = child.reward / child.visits + EXPLORATION * sqrt(
                    log(child.available) / child.visits
                )
                if score > best:
                    best, chosen = score, action
            node = children[chosen]
            sim.play(chosen)
            path.append(node)
        winners = greedy_playout(sim, rng)
        share = 1.0 / len(winners)
        for node in path:
            node.visits += 1
            if node.seat in winners:
                node.reward += share
    best_action = max(
        root_actions,
        key=lambda action: root.children[action].visits if action in root.children else -1,
    )
    return action_move(best_action)
