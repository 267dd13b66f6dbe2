"""King's Corner as Grey Circle Games plays it: the pure rules engine.

Pure Python: no Django, no I/O, no clock, no global random (the deal shuffles with
``random.Random(seed)``). `RULES` implements `greycircle.games.engine.Rules` over `GameState`.

State
-----
`GameState` is immutable (tuples only): each seat's hand (sorted), the eight piles bottom→top in
the order ``N E S W NE SE SW NW``, the stock (``stock[0]`` is the top card, the next one drawn),
the seat to act, how many actions that seat has made this turn (``plays_this_turn``), how many
turns in a row have ended with nothing played and nothing drawn (``idle_turns``), and the seat that
went out, if one did. Cards and piles are small ints (see `kingscorner.cards`). Build positions
for tests and puzzles with `position()`.

Moves
-----
``{"action": "play", "card": "7D", "to": "N"}`` (`PlayCard`), ``{"action": "move_pile", "from": "E",
"to": "N"}`` (`MovePile`), ``{"action": "end_turn"}`` (`EndTurn`). Ending the turn draws the top
stock card automatically (nothing when the stock is empty) and passes to the next seat.

`legal_moves` lists, in this order: every card play — hand order (rank, then suit ``CDHS``) and, for
each card, pile order ``N E S W NE SE SW NW`` — then every pile move — source ``N E S W``, then
target in pile order — and finally ``end_turn``, which is always legal while the game is on.

End of the game and scores
--------------------------
Playing the last card of one's hand wins at once (before any draw): reason ``"went_out"``, winners
``[that seat]``. When the stock is empty and every seat in succession ends a turn without playing
anything, reason ``"stalemate"``: the lowest penalty total wins, equal lowest totals share the win.
In both cases ``Outcome.scores`` is each seat's penalty points for the cards left in hand (King 10,
any other card 1), so the seat that went out scores 0 — lower is better.

What a seat sees (`view`)
-------------------------
::

    {"seats": 4, "hand": ["AC", "7D", ...],       # only in the seat's own view
     "hand_sizes": [7, 7, 8, 7], "stock": 20,      # counts: never another hand or the stock
     "piles": {"N": ["9S", "8H"], ..., "NW": []},  # every pile in full, bottom → top
     "to_move": 2 | None, "plays_this_turn": 1, "idle_turns": 0}

Once the game is over there is nothing left to hide: every view (each seat's and the spectators')
also has ``"final_hands"`` (every seat's remaining cards, sorted) and ``"penalties"`` (each seat's
penalty points, the same as ``Outcome.scores``). While the game is on, these keys are absent.

The log (`log_entry`) shows a draw to everybody as ``{"action": "end_turn", "drew": true}`` and the
card drawn only to the drawer (``private[seat] == {"card": "7D"}``).
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from greycircle.games.engine import IllegalMove, LoggedMove, Outcome
from kingscorner.cards import (
    ACE,
    CORNERS,
    DECK,
    FOUNDATIONS,
    KING,
    KING_CORNER,
    PILE_NAMES,
    card_name,
    colour_name,
    fits_on,
    is_red,
    parse_card,
    parse_pile,
    penalty,
    rank_of,
    rank_word,
)

__all__ = [
    "END_TURN",
    "HAND_SIZE",
    "RULES",
    "EndTurn",
    "GameState",
    "KingsCornerRules",
    "Move",
    "MovePile",
    "PlayCard",
    "position",
]

HAND_SIZE: Final = 7
MIN_SEATS: Final = 2
MAX_SEATS: Final = 6

Pile: TypeAlias = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameState:
    """One moment of a game. Never mutated: `RULES.play` returns a new state."""

    hands: tuple[tuple[int, ...], ...]
    piles: tuple[Pile, ...]
    stock: tuple[int, ...]
    turn: int = 0
    plays_this_turn: int = 0
    idle_turns: int = 0
    out: int | None = None

    @property
    def seats(self) -> int:
        return len(self.hands)

    @property
    def stalemate(self) -> bool:
        return self.idle_turns >= len(self.hands)

    @property
    def over(self) -> bool:
        return self.out is not None or self.stalemate


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play `card` from the hand of the seat to act onto pile `to`."""

    card: int
    to: int

    def to_json(self) -> dict[str, Any]:
        return {"action": "play", "card": card_name(self.card), "to": PILE_NAMES[self.to]}


@dataclass(frozen=True, slots=True)
class MovePile:
    """Move the whole foundation pile `source` onto (or, King at the bottom, into) pile `target`."""

    source: int
    target: int

    def to_json(self) -> dict[str, Any]:
        return {
            "action": "move_pile",
            "from": PILE_NAMES[self.source],
            "to": PILE_NAMES[self.target],
        }


@dataclass(frozen=True, slots=True)
class EndTurn:
    """End the turn: draw the top card of the stock (if any) and pass to the next seat."""

    def to_json(self) -> dict[str, Any]:
        return {"action": "end_turn"}


Move: TypeAlias = PlayCard | MovePile | EndTurn
END_TURN: Final = EndTurn()

_MOVE_FIELDS: Final = {
    "play": {"action", "card", "to"},
    "move_pile": {"action", "from", "to"},
    "end_turn": {"action"},
}
_SHAPES: Final = (
    'A move is {"action": "play", "card": "7D", "to": "N"}, '
    '{"action": "move_pile", "from": "E", "to": "N"} or {"action": "end_turn"}.'
)


def _colour_rule(card: int) -> str:
    return "play red on black" if is_red(card) else "play black on red"


def card_play_error(card: int, pile: int, piles: Sequence[Pile]) -> str | None:
    """Why `card` may not go onto `pile` (ignoring whose hand it is in), or None when it may."""
    target = piles[pile]
    name = card_name(card)
    if not target:
        if pile in CORNERS and rank_of(card) != KING:
            return "Only a King can go into an empty corner."
        return None
    top = target[-1]
    if rank_of(top) == ACE:
        return "Nothing can be played on an ace."
    if rank_of(card) + 1 != rank_of(top):
        if rank_of(card) == KING:
            return "A King can go only into an empty corner or an empty foundation."
        wanted = f"a {'black' if is_red(top) else 'red'} {rank_word(rank_of(top) - 1)}"
        return (
            f"{name} is not one rank lower than {card_name(top)}: "
            f"only {wanted} can go on {card_name(top)}."
        )
    if is_red(card) == is_red(top):
        colour = colour_name(card)
        return f"{name} is {colour} and {card_name(top)} is {colour}: {_colour_rule(card)}."
    return None


def pile_move_error(source: int, target: int, piles: Sequence[Pile]) -> str | None:
    """Why foundation pile `source` may not move to `target`, or None when it may."""
    if source in CORNERS:
        return "Corner piles never move."
    moving = piles[source]
    if not moving:
        return f"{PILE_NAMES[source]} is empty: there is no pile to move."
    if source == target:
        return "A pile cannot move onto itself."
    bottom = moving[0]
    onto = piles[target]
    if not onto:
        if target in FOUNDATIONS:
            return (
                "A pile moves onto another pile, or into an empty corner when a King is at its "
                "bottom; never into an empty foundation."
            )
        if rank_of(bottom) != KING:
            return (
                f"Only a pile with a King at the bottom can move into an empty corner; "
                f"{PILE_NAMES[source]} has {card_name(bottom)} at the bottom."
            )
        return None
    top = onto[-1]
    if rank_of(top) == ACE:
        return "Nothing can be played on an ace."
    if not fits_on(bottom, top):
        return (
            f"{PILE_NAMES[source]} has {card_name(bottom)} at the bottom, which does not go on "
            f"{card_name(top)}: a whole pile moves when its bottom card is one rank lower and of "
            "the opposite colour to the other pile's top card."
        )
    return None


def _penalties(state: GameState) -> list[int]:
    """Each seat's penalty points for the cards in its hand (King 10, any other card 1)."""
    return [sum(penalty(card) for card in hand) for hand in state.hands]


def _replace(piles: tuple[Pile, ...], changes: Mapping[int, Pile]) -> tuple[Pile, ...]:
    return tuple(changes.get(index, pile) for index, pile in enumerate(piles))


class KingsCornerRules:
    """The King's Corner engine behind `greycircle.games.engine.Rules`."""

    kind = "kingscorner"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS

    # --- a game ---------------------------------------------------------------------------------

    def new_game(self, seats: int, *, seed: int, options: Mapping[str, Any]) -> GameState:
        """Shuffle with `seed`, deal 7 cards each in seat order, then turn up N, E, S, W.

        A King turned up goes to its corner (N→NW, E→NE, S→SE, W→SW) and leaves its foundation
        empty. The rest of the deck is the stock, top card first.
        """
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"King's Corner is played by 2 to 6 players, not {seats}.")
        self.validate_options(options)
        deck = list(DECK)
        random.Random(seed).shuffle(deck)
        dealt = seats * HAND_SIZE
        hands = tuple(tuple(sorted(deck[seat:dealt:seats])) for seat in range(seats))
        piles: list[Pile] = [() for _ in PILE_NAMES]
        for foundation, card in zip(FOUNDATIONS, deck[dealt : dealt + 4], strict=True):
            pile = KING_CORNER[foundation] if rank_of(card) == KING else foundation
            piles[pile] = (card,)
        return GameState(hands=hands, piles=tuple(piles), stock=tuple(deck[dealt + 4 :]))

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        if options:
            unknown = ", ".join(sorted(str(key) for key in options))
            raise IllegalMove("malformed", f"King's Corner has no options (got: {unknown}).")
        return {}

    def to_move(self, state: GameState) -> int | None:
        return None if state.over else state.turn

    def legal_moves(self, state: GameState) -> list[Move]:
        if state.over:
            return []
        piles = state.piles
        tops = [pile[-1] if pile else None for pile in piles]
        moves: list[Move] = []
        for card in state.hands[state.turn]:
            king = rank_of(card) == KING
            for index, top in enumerate(tops):
                if top is None:
                    if index < 4 or king:
                        moves.append(PlayCard(card, index))
                elif fits_on(card, top):
                    moves.append(PlayCard(card, index))
        for source in FOUNDATIONS:
            if not piles[source]:
                continue
            bottom = piles[source][0]
            for target, top in enumerate(tops):
                if target == source:
                    continue
                if top is None:
                    if target in CORNERS and rank_of(bottom) == KING:
                        moves.append(MovePile(source, target))
                elif fits_on(bottom, top):
                    moves.append(MovePile(source, target))
        moves.append(END_TURN)
        return moves

    def play(self, state: GameState, move: Move) -> GameState:
        if state.over:
            raise IllegalMove("illegal_move", "The game is over.")
        if isinstance(move, PlayCard):
            return self._play_card(state, move)
        if isinstance(move, MovePile):
            return self._move_pile(state, move)
        if isinstance(move, EndTurn):
            return self._end_turn(state)
        raise IllegalMove("malformed", _SHAPES)

    def _play_card(self, state: GameState, move: PlayCard) -> GameState:
        seat = state.turn
        hand = state.hands[seat]
        if move.card not in hand:
            raise IllegalMove("illegal_move", f"{card_name(move.card)} is not in your hand.")
        error = card_play_error(move.card, move.to, state.piles)
        if error is not None:
            raise IllegalMove("illegal_move", error)
        new_hand = tuple(card for card in hand if card != move.card)
        hands = (*state.hands[:seat], new_hand, *state.hands[seat + 1 :])
        piles = _replace(state.piles, {move.to: (*state.piles[move.to], move.card)})
        return GameState(
            hands=hands,
            piles=piles,
            stock=state.stock,
            turn=seat,
            plays_this_turn=state.plays_this_turn + 1,
            idle_turns=0,
            out=None if new_hand else seat,
        )

    def _move_pile(self, state: GameState, move: MovePile) -> GameState:
        error = pile_move_error(move.source, move.target, state.piles)
        if error is not None:
            raise IllegalMove("illegal_move", error)
        moved = state.piles[move.target] + state.piles[move.source]
        piles = _replace(state.piles, {move.target: moved, move.source: ()})
        return GameState(
            hands=state.hands,
            piles=piles,
            stock=state.stock,
            turn=state.turn,
            plays_this_turn=state.plays_this_turn + 1,
            idle_turns=0,
        )

    def _end_turn(self, state: GameState) -> GameState:
        seat = state.turn
        hands = state.hands
        idle = 0
        if state.stock:
            drawn = list(hands[seat])
            insort(drawn, state.stock[0])
            hands = (*hands[:seat], tuple(drawn), *hands[seat + 1 :])
        elif state.plays_this_turn == 0:
            idle = state.idle_turns + 1
        return GameState(
            hands=hands,
            piles=state.piles,
            stock=state.stock[1:],
            turn=(seat + 1) % len(hands),
            plays_this_turn=0,
            idle_turns=idle,
        )

    def outcome(self, state: GameState) -> Outcome | None:
        if not state.over:
            return None
        scores = _penalties(state)
        if state.out is not None:
            return Outcome(scores=scores, winners=[state.out], reason="went_out")
        best = min(scores)
        winners = [seat for seat, score in enumerate(scores) if score == best]
        return Outcome(scores=scores, winners=winners, reason="stalemate")

    # --- what players see -----------------------------------------------------------------------

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """What `seat` may see: its own hand, hand sizes, the stock's size, every pile in full.

        When the game is over, also every seat's remaining cards and penalty points.
        """
        view: dict[str, Any] = {"seats": state.seats}
        if seat is not None:
            view["hand"] = [card_name(card) for card in state.hands[seat]]
        view.update(
            {
                "hand_sizes": [len(hand) for hand in state.hands],
                "stock": len(state.stock),
                "piles": {
                    name: [card_name(card) for card in pile]
                    for name, pile in zip(PILE_NAMES, state.piles, strict=True)
                },
                "to_move": self.to_move(state),
                "plays_this_turn": state.plays_this_turn,
                "idle_turns": state.idle_turns,
            }
        )
        if state.over:
            view["final_hands"] = [[card_name(card) for card in hand] for hand in state.hands]
            view["penalties"] = _penalties(state)
        return view

    def parse_move(self, data: Mapping[str, Any]) -> Move:
        if not isinstance(data, Mapping):
            raise IllegalMove("malformed", _SHAPES)
        action = data.get("action")
        if not isinstance(action, str) or action not in _MOVE_FIELDS:
            raise IllegalMove("malformed", _SHAPES)
        unknown = set(data) - _MOVE_FIELDS[action]
        missing = _MOVE_FIELDS[action] - set(data)
        if unknown or missing:
            raise IllegalMove("malformed", _SHAPES)
        if action == "end_turn":
            return END_TURN
        target = parse_pile(data["to"])
        if target is None:
            raise IllegalMove(
                "malformed", f"There is no pile {data['to']!r}: piles are N E S W NE SE SW NW."
            )
        if action == "play":
            card = parse_card(data["card"])
            if card is None:
                raise IllegalMove(
                    "malformed",
                    f"There is no card {data['card']!r}: cards are rank A23456789TJQK + suit "
                    "CDHS, like 7D, TD or KS.",
                )
            return PlayCard(card, target)
        source = parse_pile(data["from"])
        if source is None:
            raise IllegalMove(
                "malformed", f"There is no pile {data['from']!r}: piles are N E S W NE SE SW NW."
            )
        return MovePile(source, target)

    def move_to_json(self, move: Move) -> dict[str, Any]:
        return move.to_json()

    def log_entry(self, before: GameState, move: Move, after: GameState) -> LoggedMove:
        """Everybody sees every action; only the drawer sees the card drawn at the end of a turn."""
        if isinstance(move, EndTurn):
            drew = bool(before.stock)
            private = {before.turn: {"card": card_name(before.stock[0])}} if drew else {}
            return LoggedMove(public={"action": "end_turn", "drew": drew}, private=private)
        return LoggedMove(public=move.to_json())

    # --- storage --------------------------------------------------------------------------------

    def encode(self, state: GameState) -> dict[str, Any]:
        return {
            "hands": [[card_name(card) for card in hand] for hand in state.hands],
            "piles": {
                name: [card_name(card) for card in pile]
                for name, pile in zip(PILE_NAMES, state.piles, strict=True)
            },
            "stock": [card_name(card) for card in state.stock],
            "turn": state.turn,
            "plays_this_turn": state.plays_this_turn,
            "idle_turns": state.idle_turns,
            "out": state.out,
        }

    def decode(self, data: Mapping[str, Any]) -> GameState:
        state = position(
            hands=data["hands"],
            piles=data["piles"],
            stock=data["stock"],
            to_move=data["turn"],
            plays_this_turn=data.get("plays_this_turn", 0),
            idle_turns=data.get("idle_turns", 0),
        )
        out = data.get("out")
        if out is None:
            return state
        return GameState(
            hands=state.hands,
            piles=state.piles,
            stock=state.stock,
            turn=state.turn,
            plays_this_turn=state.plays_this_turn,
            idle_turns=state.idle_turns,
            out=int(out),
        )


def _cards(names: Iterable[str | int], where: str) -> tuple[int, ...]:
    cards = []
    for name in names:
        card = name if type(name) is int and 0 <= name < 52 else parse_card(name)
        if card is None:
            raise ValueError(f"{name!r} in {where} is not a card.")
        cards.append(card)
    return tuple(cards)


def position(
    *,
    hands: Sequence[Iterable[str | int]],
    piles: Mapping[str, Iterable[str | int]] | None = None,
    stock: Iterable[str | int] = (),
    to_move: int = 0,
    plays_this_turn: int = 0,
    idle_turns: int = 0,
) -> GameState:
    """A state built by hand: hands per seat, piles by name (bottom → top), stock top first.

    Cards are names (``"7D"``) or ints. The cards need not make a whole deck, but each may appear
    only once. Raises ValueError on anything that is not a position.
    """
    if not MIN_SEATS <= len(hands) <= MAX_SEATS:
        raise ValueError(f"King's Corner is played by 2 to 6 players, not {len(hands)}.")
    seat_hands = tuple(
        tuple(sorted(_cards(hand, f"hand {seat}"))) for seat, hand in enumerate(hands)
    )
    pile_cards: list[Pile] = [() for _ in PILE_NAMES]
    for name, cards in (piles or {}).items():
        index = parse_pile(name)
        if index is None:
            raise ValueError(f"There is no pile {name!r}.")
        pile_cards[index] = _cards(cards, f"pile {name}")
    stock_cards = _cards(stock, "the stock")
    every = [card for hand in seat_hands for card in hand] + [c for p in pile_cards for c in p]
    every += stock_cards
    if len(every) != len(set(every)):
        raise ValueError("A card appears more than once.")
    if not 0 <= to_move < len(hands):
        raise ValueError(f"There is no seat {to_move}.")
    if plays_this_turn < 0 or idle_turns < 0:
        raise ValueError("Counters cannot be negative.")
    return GameState(
        hands=seat_hands,
        piles=tuple(pile_cards),
        stock=stock_cards,
        turn=to_move,
        plays_this_turn=plays_this_turn,
        idle_turns=idle_turns,
    )


RULES: Final = KingsCornerRules()
