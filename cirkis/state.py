"""The CirKis game state: what one moment of a game holds, how it is stored, how tests build one.

Pure Python, no Django. `cirkis.rules` plays on these states (and re-exports everything here);
`cirkis.rounds` ends rounds and games.

State
-----
`GameState` is immutable: a covered-fields bitmask per seat (``covered``; bit ``i`` = field ``i``),
the pieces each seat has left (counts in `PIECE_KEYS` order), the points — ``scores`` (the totals
over every round) and ``round_scores`` (the points scored in the round being played; the same as
``scores`` outside the long game) —, the seat to move, the Leader (the last piece placed, a
`cirkis.board.Placement`) and its owner, whether the seat to move is on a free turn, whether the
first Sliver of the round has been played, the shapes completed in this round (with who scored
what), the seats that lost their turn after the last placement, what the last placement caused
(``events``), and ``finished`` (None, ``"target"``, ``"went_out"`` or ``"blocked"``). The
options (Center Ring scoring, long game) travel in the state, with ``target`` (the total that ends
the game: 40, or 100 in the long game), the round number (from 0) and ``scoreless_rounds`` (how
many rounds in a row, up to the last one ended, nobody scored a point in). Build positions for
tests with `position()`.

Storage (`encode_state` / `decode_state`, `RULES.encode` / `RULES.decode`)
-------------------------------------------------------------------------
JSON; masks are hex strings (JavaScript numbers cannot hold 165-bit integers)::

    {"covered": ["13", "c"], "pieces_left": [{"big_slice": 3, ...}, ...], "scores": [15, 10],
     "round_scores": [15, 10], "turn": 1, "leader": {"seat": 0, "piece": "wedge", "fields": [0, 1]},
     "free_turn": false, "first_sliver_played": false, "completed": [...], "lost_turns": [],
     "events": [...], "finished": null, "options": {"center_ring": false, "long_game": false},
     "round": 0, "scoreless_rounds": 0}

States stored before ``round_scores`` and ``scoreless_rounds`` existed decode as they were meant:
the round's points are the points of the shapes completed in the round (``completed`` only ever
held the current round's; a going-out bonus ended its round at once, so it only counts in a
finished state), and ``scoreless_rounds`` is 0 (that engine ended a long game on its first
scoreless round, so a game still being played had none).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from cirkis.board import FIELD_COUNT, PIECES, Placement, fields_of, mask_of, placement
from cirkis.scoring import Completion

__all__ = [
    "FULL_SET",
    "GO_OUT_BONUS",
    "LONG_TARGET",
    "MAX_SEATS",
    "MIN_SEATS",
    "PIECE_INDEX",
    "PIECE_KEYS",
    "SCORELESS_ROUNDS",
    "TARGET",
    "Event",
    "GameState",
    "decode_state",
    "encode_state",
    "leader_json",
    "position",
]

MIN_SEATS: Final = 2
MAX_SEATS: Final = 4
TARGET: Final = 40
"""Points in one round that end it (and the game, outside the long game)."""
LONG_TARGET: Final = 100
"""The total that ends a long game after the round in which a seat reaches it."""
GO_OUT_BONUS: Final = 10
SCORELESS_ROUNDS: Final = 3
"""Rounds in a row without a point that end a long game."""

PIECE_KEYS: Final[tuple[str, ...]] = tuple(PIECES)
PIECE_INDEX: Final[dict[str, int]] = {key: index for index, key in enumerate(PIECE_KEYS)}
FULL_SET: Final[tuple[int, ...]] = tuple(PIECES[key].per_set for key in PIECE_KEYS)


@dataclass(frozen=True, slots=True)
class Event:
    """Something a placement caused besides covering fields (see `cirkis.rules`)."""

    type: str
    seat: int | None = None
    reason: str | None = None
    points: int | None = None
    round: int | None = None
    completion: Completion | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        if self.completion is not None:
            data.update(self.completion.to_json())
        for key in ("seat", "reason", "points", "round"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Event:
        kind = str(data["type"])
        if kind == "completed":
            return cls(type=kind, completion=Completion.from_json(data))
        return cls(
            type=kind,
            seat=None if data.get("seat") is None else int(data["seat"]),
            reason=None if data.get("reason") is None else str(data["reason"]),
            points=None if data.get("points") is None else int(data["points"]),
            round=None if data.get("round") is None else int(data["round"]),
        )


@dataclass(frozen=True, slots=True)
class GameState:
    """One moment of a game. Never mutated: `RULES.play` returns a new state."""

    covered: tuple[int, ...]
    pieces_left: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    round_scores: tuple[int, ...]
    turn: int = 0
    leader: Placement | None = None
    leader_seat: int | None = None
    free_turn: bool = False
    first_sliver_played: bool = False
    completed: tuple[Completion, ...] = ()
    lost_turns: tuple[int, ...] = ()
    events: tuple[Event, ...] = ()
    finished: str | None = None
    center_ring: bool = False
    long_game: bool = False
    target: int = TARGET
    round: int = 0
    scoreless_rounds: int = 0

    @property
    def seats(self) -> int:
        return len(self.covered)

    @property
    def occupied(self) -> int:
        occupied = 0
        for mask in self.covered:
            occupied |= mask
        return occupied

    @property
    def over(self) -> bool:
        return self.finished is not None

    def pieces_of(self, seat: int) -> dict[str, int]:
        return dict(zip(PIECE_KEYS, self.pieces_left[seat], strict=True))


def leader_json(state: GameState) -> dict[str, Any] | None:
    """``{"seat", "piece", "fields"}`` of the Leader, or None before the round's first piece."""
    if state.leader is None:
        return None
    return {
        "seat": state.leader_seat,
        "piece": state.leader.piece,
        "fields": list(state.leader.fields),
    }


# --- storage ------------------------------------------------------------------------------------


def encode_state(state: GameState) -> dict[str, Any]:
    """The state as JSON (see the module docstring)."""
    return {
        "covered": [format(mask, "x") for mask in state.covered],
        "pieces_left": [state.pieces_of(s) for s in range(state.seats)],
        "scores": list(state.scores),
        "round_scores": list(state.round_scores),
        "turn": state.turn,
        "leader": leader_json(state),
        "free_turn": state.free_turn,
        "first_sliver_played": state.first_sliver_played,
        "completed": [completion.to_json() for completion in state.completed],
        "lost_turns": list(state.lost_turns),
        "events": [event.to_json() for event in state.events],
        "finished": state.finished,
        "options": {"center_ring": state.center_ring, "long_game": state.long_game},
        "round": state.round,
        "scoreless_rounds": state.scoreless_rounds,
    }


def _stored_round_scores(
    seats: int,
    completed: Sequence[Completion],
    events: Sequence[Event],
    finished: bool,
) -> list[int]:
    """A long game's round points in a state stored without them (see the module docstring)."""
    points = [0] * seats
    for completion in completed:
        for who, gained in completion.awards:
            points[who] += gained
    if finished:
        for event in events:
            if event.type == "went_out" and event.seat is not None:
                points[event.seat] += event.points or 0
    return points


def decode_state(data: Mapping[str, Any]) -> GameState:
    """The state `encode_state` stored, including states stored by earlier versions."""
    covered = [fields_of(int(mask, 16)) for mask in data["covered"]]
    leader = data.get("leader")
    options = data.get("options", {})
    long_game = bool(options.get("long_game", False))
    completed = tuple(Completion.from_json(c) for c in data.get("completed", ()))
    events = tuple(Event.from_json(e) for e in data.get("events", ()))
    finished = data.get("finished")
    round_scores = data.get("round_scores")
    if round_scores is None and long_game:
        round_scores = _stored_round_scores(len(covered), completed, events, finished is not None)
    state = position(
        covered=covered,
        pieces_left=data["pieces_left"],
        scores=data["scores"],
        round_scores=round_scores,
        to_move=data["turn"],
        leader=None if leader is None else (leader["piece"], leader["fields"]),
        free_turn=data.get("free_turn", False),
        first_sliver_played=data.get("first_sliver_played", False),
        center_ring=bool(options.get("center_ring", False)),
        long_game=long_game,
        round_number=int(data.get("round", 0)),
        scoreless_rounds=int(data.get("scoreless_rounds", 0)),
        check=False,
    )
    return replace(
        state,
        completed=completed,
        lost_turns=tuple(int(s) for s in data.get("lost_turns", ())),
        events=events,
        finished=None if finished is None else str(finished),
    )


# --- positions built by hand --------------------------------------------------------------------


def position(
    *,
    covered: Sequence[Iterable[int]],
    pieces_left: Sequence[Mapping[str, int] | None] | None = None,
    scores: Sequence[int] | None = None,
    round_scores: Sequence[int] | None = None,
    to_move: int = 0,
    leader: tuple[str, Iterable[int]] | None = None,
    free_turn: bool = False,
    first_sliver_played: bool = False,
    center_ring: bool = False,
    long_game: bool = False,
    round_number: int = 0,
    scoreless_rounds: int = 0,
    check: bool = True,
) -> GameState:
    """A state built by hand, for tests and puzzles.

    `covered` gives the field ids each seat covers (its length is the number of seats).
    `pieces_left` gives each seat's pieces as ``{piece: count}`` — pieces not named are 0 — or
    None for a full set (the default for every seat). `scores` are the totals; `round_scores`
    the points scored in the round being played, by default all of `scores` (outside the long
    game they are always the same). `leader` is ``(piece, field ids)``: a placement of that piece
    on fields all covered by one seat, its owner. `scoreless_rounds` (long game) counts the
    rounds just ended in which nobody scored, 0 to 2. Raises ValueError on anything that is not
    a position (`check=False`, for stored states, skips the checks on the points).
    """
    seats = len(covered)
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"CirKis is played by 2 to 4 players, not {seats}.")
    masks = []
    for seat, ids in enumerate(covered):
        ids = list(ids)
        if any(type(i) is not int or not 0 <= i < FIELD_COUNT for i in ids):
            raise ValueError(f"Seat {seat} covers a field that is not on the board.")
        masks.append(mask_of(ids))
    total = 0
    for mask in masks:
        if total & mask:
            raise ValueError(f"Fields {list(fields_of(total & mask))} are covered twice.")
        total |= mask
    left: list[tuple[int, ...]] = []
    for seat, given in enumerate(pieces_left or [None] * seats):
        if given is None:
            left.append(FULL_SET)
            continue
        unknown = set(given) - set(PIECE_KEYS)
        if unknown:
            raise ValueError(f"Seat {seat}: there is no piece {sorted(unknown)}.")
        counts = tuple(int(given.get(key, 0)) for key in PIECE_KEYS)
        if any(count < 0 for count in counts):
            raise ValueError(f"Seat {seat} cannot have fewer than no pieces.")
        left.append(counts)
    if len(left) != seats:
        raise ValueError("pieces_left needs an entry per seat.")
    points = tuple(int(s) for s in scores) if scores is not None else (0,) * seats
    if len(points) != seats:
        raise ValueError("scores needs an entry per seat.")
    in_round = points if round_scores is None else tuple(int(s) for s in round_scores)
    if len(in_round) != seats:
        raise ValueError("round_scores needs an entry per seat.")
    if check:
        if not long_game and in_round != points:
            raise ValueError("Outside the long game the round's points are the scores.")
        if any(not 0 <= now <= all_ for now, all_ in zip(in_round, points, strict=True)):
            raise ValueError("A round's points are between 0 and the seat's total.")
        if max(in_round) >= TARGET:
            raise ValueError(f"A round ends when a seat has {TARGET} points in it.")
        if not 0 <= scoreless_rounds < SCORELESS_ROUNDS:
            raise ValueError(f"scoreless_rounds is 0 to {SCORELESS_ROUNDS - 1}.")
    if not 0 <= to_move < seats:
        raise ValueError(f"There is no seat {to_move}.")
    lead: Placement | None = None
    lead_seat: int | None = None
    if leader is not None:
        piece, ids = leader
        lead = placement(piece, ids)
        if lead is None:
            raise ValueError(f"{list(ids)} is not a placement of {piece!r}.")
        owners = {seat for seat, mask in enumerate(masks) if mask & lead.mask}
        if len(owners) != 1 or masks[next(iter(owners))] & lead.mask != lead.mask:
            raise ValueError("The Leader's fields must all be covered by one seat.")
        lead_seat = owners.pop()
    elif free_turn:
        raise ValueError("A free turn needs a Leader.")
    return GameState(
        covered=tuple(masks),
        pieces_left=tuple(left),
        scores=points,
        round_scores=in_round,
        turn=to_move,
        leader=lead,
        leader_seat=lead_seat,
        free_turn=free_turn,
        first_sliver_played=first_sliver_played,
        center_ring=center_ring,
        long_game=long_game,
        target=LONG_TARGET if long_game else TARGET,
        round=round_number,
        scoreless_rounds=scoreless_rounds,
    )
