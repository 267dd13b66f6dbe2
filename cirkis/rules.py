"""CirKis as Grey Circle Games plays it: the pure rules engine.

Pure Python: no Django, no I/O, no clock, no randomness at all (CirKis has no chance, so `seed` is
ignored). `RULES` implements `greycircle.games.engine.Rules` over `GameState`. The board, the
pieces and every placement of every piece come from `cirkis.board`; scoring is `cirkis.scoring`.

State
-----
`GameState` is immutable: a covered-fields bitmask per seat (``covered``; bit ``i`` = field ``i``),
the pieces each seat has left (counts in `PIECE_KEYS` order), the scores, the seat to move, the
Leader (the last piece placed, a `cirkis.board.Placement`) and its owner, whether the seat to move
is on a free turn, whether the first Sliver has been played, the shapes completed so far (with who
scored what), the seats that lost their turn after the last placement, what the last placement
caused (``events``), and ``finished`` (None, ``"target"``, ``"went_out"`` or ``"blocked"``). The
options (Center Ring scoring, the target, long game and its round number) travel in the state.
Build positions for tests with `position()`.

Moves
-----
A move is a `Placement` (piece key, sorted field ids, mask): ``{"piece": "big_slice", "fields":
[25, 35, 36]}`` in JSON (`move_to_json` sorts the field ids; `parse_move` takes any order).

`legal_moves` lists every legal placement of the seat to move: piece types in ``pieces.json`` order
(big_slice, small_slice, kite, arrow, wedge, triangle, hook, cube, sliver) — only those the seat has
left — and for each piece its placements in board order (ascending field ids, as in
``cirkis.board.PLACEMENTS``). A placement is legal when its fields are all empty and it
* covers a field of the Center Star or the Center Ring, for the first piece of a game (or round);
* touches the Leader (shares an edge or a corner with it), for every later piece;
* touches *some* covered field, on a free turn. The rules say a free-turn piece "may touch any
  piece on the board"; this engine reads that as "must touch at least one piece on the board" —
  the Leader rule is relaxed to any piece, not dropped.

Free turns, lost turns and the end
----------------------------------
After a placement `play` scores the shapes it completed (`cirkis.scoring`), then:

1. if a seat has reached the target (40; 100 in the long game) the game ends at once:
   ``"target"`` (several seats arriving together: the highest score wins, as always). The game
   being over, a placer who also placed its last piece gets no going-out bonus;
2. if the placer has no pieces left it went out: +10, and the game ends: ``"went_out"``;
3. if the placement earned a free turn, the placer moves again with ``free_turn`` set. A placement
   earns one (at most one, reasons checked in this order, the first that applies is reported) when
   * ``"filled"`` — every field touching the placed piece (by edge or corner, the piece's own
     fields excluded) is covered after the placement: the piece filled a hole. The rim closes a
     space the way covered fields do (fields off the board do not exist);
   * ``"center_star"`` — it covered the last of the Center Star's five darts;
   * ``"first_sliver"`` — it is the first Sliver of the game (or round); later Slivers earn nothing.
   A free-turn piece can earn another free turn. If the placer cannot place any piece touching a
   piece on the board, the free turn just ends (event ``free_turn_unused``; it is not a lost turn)
   and play passes on as after any placement;
4. otherwise the next seats in order must touch the new Leader. A seat that has no such placement
   loses its turn automatically (event ``lost_turn``; the Leader stays), inside this same `play`.
   If every seat in turn — the placer included — loses its turn, nobody can place a piece: the
   game ends, ``"blocked"``.

`to_move` is therefore always a seat that has a legal placement, or None once the game is over.

Long game (option ``long_game``): the target is 100 and when a round ends by going out or by
blocking before anybody reached 100, a new round starts — board cleared, fresh sets, Leader and
first-Sliver flag reset, scores kept — with round ``r`` (from 0) started by seat ``r mod seats``.
A blocked round in which nobody scored a point ends the game (``"blocked"``), so a long game always
ends.

Outcome: highest score wins; a tie goes to the tied seat with the most unplayed pieces; still tied,
all of those seats share the win. ``Outcome.scores`` are the points.

What a seat sees (`view`) — CirKis hides nothing, every seat and spectators see the same::

    {"seats": 2, "owners": [0, null, 1, ...],            # 165 entries: the seat covering a field
     "leader": {"seat": 0, "piece": "hook", "fields": [12, 40]} | null,
     "scores": [15, 10], "pieces_left": [{"big_slice": 3, ...}, ...],
     "to_move": 1 | null, "free_turn": false, "first_sliver_played": true,
     "completed": [{"shape": "C3", "by": 0, "majority": 1, "scores": {"0": 5, "1": 10}}, ...],
     "lost_turns": [1],                                # seats that lost their turn just now
     "last_events": [{"type": "completed", ...}, {"type": "lost_turn", "seat": 1}],
     "finished": null | "target" | "went_out" | "blocked",
     "target": 40, "center_ring": false, "long_game": false, "round": 0}

Events (``last_events``, and ``events`` in the log): ``{"type": "completed", "shape", "by",
"majority", "scores"}``, ``{"type": "free_turn", "seat", "reason"}``, ``{"type":
"free_turn_unused", "seat"}``, ``{"type": "lost_turn", "seat"}``, ``{"type": "went_out", "seat",
"points": 10}``, ``{"type": "round_over", "reason", "round"}`` and ``{"type": "game_over",
"reason"}``.

The log (`log_entry`, public only): ``{"seat", "piece", "fields", "scored": [completion...],
"free_turn": reason | null, "lost_turns": [seats], "events": [...]}``.

Storage (`encode`): masks are hex strings (JavaScript numbers cannot hold 165-bit integers).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from cirkis.board import (
    CENTER_RING_MASK,
    CENTER_STAR_MASK,
    FIELD_COUNT,
    PIECES,
    PLACEMENTS,
    TOUCH_MASKS,
    Placement,
    fields_of,
    mask_of,
    placement,
)
from cirkis.scoring import Completion, completions
from greycircle.games.engine import IllegalMove, LoggedMove, Outcome

__all__ = [
    "FULL_SET",
    "GO_OUT_BONUS",
    "LONG_TARGET",
    "PIECE_KEYS",
    "RULES",
    "TARGET",
    "CirKisRules",
    "Event",
    "GameState",
    "Placement",
    "position",
    "required_mask",
]

MIN_SEATS: Final = 2
MAX_SEATS: Final = 4
TARGET: Final = 40
LONG_TARGET: Final = 100
GO_OUT_BONUS: Final = 10

PIECE_KEYS: Final[tuple[str, ...]] = tuple(PIECES)
PIECE_INDEX: Final[dict[str, int]] = {key: index for index, key in enumerate(PIECE_KEYS)}
FULL_SET: Final[tuple[int, ...]] = tuple(PIECES[key].per_set for key in PIECE_KEYS)
SLIVER: Final = PIECE_INDEX["sliver"]
START_MASK: Final = CENTER_STAR_MASK | CENTER_RING_MASK

PIECE_PLACEMENTS: Final[tuple[tuple[Placement, ...], ...]] = tuple(
    PLACEMENTS[key] for key in PIECE_KEYS
)
"""The placements of each piece type, indexed like `PIECE_KEYS`."""


def _touching(mask: int) -> int:
    result = 0
    rest = mask
    while rest:
        low = rest & -rest
        result |= TOUCH_MASKS[low.bit_length() - 1]
        rest ^= low
    return result & ~mask


PLACEMENT_TOUCH: Final[dict[int, int]] = {
    p.mask: _touching(p.mask) for group in PIECE_PLACEMENTS for p in group
}
"""Placement mask -> the fields touching that placement (its own fields excluded)."""

_OPTION_KEYS: Final = ("center_ring", "long_game")


def _name(piece: str) -> str:
    return PIECES[piece].name


def _field_list(ids: Sequence[int]) -> str:
    if len(ids) == 1:
        return f"field {ids[0]}"
    return "fields " + ", ".join(str(i) for i in ids[:-1]) + f" and {ids[-1]}"


@dataclass(frozen=True, slots=True)
class Event:
    """Something a placement caused besides covering fields (see the module docstring)."""

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


def required_mask(state: GameState) -> int:
    """The fields a legal placement must share at least one field with (covering, for the first
    piece) or touch: the Center Star and Ring, the Leader's neighbours, or every covered field's
    neighbours on a free turn."""
    if state.leader is None:
        return START_MASK
    if state.free_turn:
        return _touching(state.occupied)
    return PLACEMENT_TOUCH[state.leader.mask]


def _placements(pieces: Sequence[int], occupied: int, required: int) -> list[Placement]:
    moves: list[Placement] = []
    for index, count in enumerate(pieces):
        if count:
            moves.extend(
                p for p in PIECE_PLACEMENTS[index] if not p.mask & occupied and p.mask & required
            )
    return moves


def _has_placement(pieces: Sequence[int], occupied: int, required: int) -> bool:
    for index, count in enumerate(pieces):
        if count:
            for p in PIECE_PLACEMENTS[index]:
                mask = p.mask
                if not mask & occupied and mask & required:
                    return True
    return False


def _fresh_round(state: GameState, *, round_number: int, scores: tuple[int, ...]) -> GameState:
    seats = state.seats
    return replace(
        state,
        covered=(0,) * seats,
        pieces_left=(FULL_SET,) * seats,
        scores=scores,
        turn=round_number % seats,
        leader=None,
        leader_seat=None,
        free_turn=False,
        first_sliver_played=False,
        completed=(),
        lost_turns=(),
        finished=None,
        round=round_number,
    )


class CirKisRules:
    """The CirKis engine behind `greycircle.games.engine.Rules`."""

    kind = "cirkis"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS

    # --- a game ---------------------------------------------------------------------------------

    def new_game(self, seats: int, *, seed: int, options: Mapping[str, Any]) -> GameState:
        """An empty board, a full set for every seat, seat 0 to move. `seed` is unused."""
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"CirKis is played by 2 to 4 players, not {seats}.")
        normalised = self.validate_options(options)
        return GameState(
            covered=(0,) * seats,
            pieces_left=(FULL_SET,) * seats,
            scores=(0,) * seats,
            center_ring=normalised["center_ring"],
            long_game=normalised["long_game"],
            target=LONG_TARGET if normalised["long_game"] else TARGET,
        )

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``{"center_ring": bool, "long_game": bool}``, both False by default."""
        if not isinstance(options, Mapping):
            raise IllegalMove("malformed", "Options are an object.")
        unknown = sorted(str(key) for key in options if key not in _OPTION_KEYS)
        if unknown:
            raise IllegalMove(
                "malformed",
                f"CirKis has no option {', '.join(unknown)}: the options are "
                "center_ring and long_game.",
            )
        normalised: dict[str, Any] = {}
        for key in _OPTION_KEYS:
            value = options.get(key, False)
            if not isinstance(value, bool):
                raise IllegalMove("malformed", f"The option {key} is true or false.")
            normalised[key] = value
        return normalised

    def to_move(self, state: GameState) -> int | None:
        return None if state.finished is not None else state.turn

    def legal_moves(self, state: GameState) -> list[Placement]:
        """Every legal placement for the seat to move, in the order the module docstring gives."""
        if state.finished is not None:
            return []
        return _placements(state.pieces_left[state.turn], state.occupied, required_mask(state))

    def placement_error(self, state: GameState, move: Placement) -> str | None:
        """Why the seat to move may not make `move` (a placement on the board), or None."""
        if state.finished is not None:
            return "The game is over."
        seat = state.turn
        name = _name(move.piece)
        if not state.pieces_left[seat][PIECE_INDEX[move.piece]]:
            return f"You have no {name} left."
        taken = [i for i in move.fields if state.occupied >> i & 1]
        if taken:
            verb = "is" if len(taken) == 1 else "are"
            return f"{_field_list(taken).capitalize()} {verb} already covered."
        if state.leader is None:
            if not move.mask & START_MASK:
                return (
                    "The first piece must cover at least one field of the Center Star or the "
                    "Center Ring."
                )
        elif state.free_turn:
            if not move.mask & _touching(state.occupied):
                return "On a free turn the piece must touch a piece already on the board."
        elif not move.mask & PLACEMENT_TOUCH[state.leader.mask]:
            return (
                f"Follow the Leader: the piece must touch the Leader, the "
                f"{_name(state.leader.piece)} on {_field_list(state.leader.fields)}."
            )
        return None

    def play(self, state: GameState, move: Placement) -> GameState:
        if not isinstance(move, Placement) or placement(move.piece, move.fields) != move:
            raise IllegalMove("malformed", 'A move is {"piece": "big_slice", "fields": [...]}.')
        error = self.placement_error(state, move)
        if error is not None:
            raise IllegalMove("illegal_move", error)
        return self.advance(state, move)

    def advance(self, state: GameState, move: Placement) -> GameState:
        """Play `move`, known to be legal, without checking it (for search; `play` checks)."""
        seat = state.turn
        seats = state.seats
        covered = list(state.covered)
        covered[seat] |= move.mask
        occupied = 0
        for mask in covered:
            occupied |= mask
        pieces = list(state.pieces_left)
        mine = list(pieces[seat])
        mine[PIECE_INDEX[move.piece]] -= 1
        pieces[seat] = tuple(mine)

        scored = completions(covered, move.mask, seat, center_ring=state.center_ring)
        scores = list(state.scores)
        events: list[Event] = []
        for completion in scored:
            for who, points in completion.awards:
                scores[who] += points
            events.append(Event(type="completed", completion=completion))
        is_sliver = PIECE_INDEX[move.piece] == SLIVER

        def after(turn: int, free_turn: bool, lost: Sequence[int]) -> GameState:
            return GameState(
                covered=tuple(covered),
                pieces_left=tuple(pieces),
                scores=tuple(scores),
                turn=turn,
                leader=move,
                leader_seat=seat,
                free_turn=free_turn,
                first_sliver_played=state.first_sliver_played or is_sliver,
                completed=state.completed + scored,
                lost_turns=tuple(lost),
                events=tuple(events),
                center_ring=state.center_ring,
                long_game=state.long_game,
                target=state.target,
                round=state.round,
            )

        if max(scores) >= state.target:
            return self._game_over(after(seat, False, ()), "target", events)
        if not any(mine):
            scores[seat] += GO_OUT_BONUS
            events.append(Event(type="went_out", seat=seat, points=GO_OUT_BONUS))
            return self._round_over(after(seat, False, ()), "went_out", events)

        reason = None
        if not PLACEMENT_TOUCH[move.mask] & ~occupied:
            reason = "filled"
        elif move.mask & CENTER_STAR_MASK and occupied & CENTER_STAR_MASK == CENTER_STAR_MASK:
            reason = "center_star"
        elif is_sliver and not state.first_sliver_played:
            reason = "first_sliver"
        if reason is not None:
            events.append(Event(type="free_turn", seat=seat, reason=reason))
            if _has_placement(mine, occupied, _touching(occupied)):
                return after(seat, True, ())
            events.append(Event(type="free_turn_unused", seat=seat))

        required = PLACEMENT_TOUCH[move.mask]
        lost: list[int] = []
        for step in range(1, seats + 1):
            nxt = (seat + step) % seats
            if _has_placement(pieces[nxt], occupied, required):
                return after(nxt, False, lost)
            lost.append(nxt)
            events.append(Event(type="lost_turn", seat=nxt))
        return self._round_over(after(seat, False, lost), "blocked", events)

    def _game_over(self, state: GameState, reason: str, events: list[Event]) -> GameState:
        events.append(Event(type="game_over", reason=reason))
        return replace(state, finished=reason, free_turn=False, events=tuple(events))

    def _round_over(self, state: GameState, reason: str, events: list[Event]) -> GameState:
        if not state.long_game:
            return self._game_over(state, reason, events)
        if max(state.scores) >= state.target:
            return self._game_over(state, "target", events)
        if reason == "blocked" and not state.completed:
            return self._game_over(state, "blocked", events)
        events.append(Event(type="round_over", reason=reason, round=state.round))
        fresh = _fresh_round(state, round_number=state.round + 1, scores=state.scores)
        return replace(fresh, events=tuple(events))

    def outcome(self, state: GameState) -> Outcome | None:
        if state.finished is None:
            return None
        scores = list(state.scores)
        best = max(scores)
        tied = [seat for seat, score in enumerate(scores) if score == best]
        if len(tied) > 1:
            left = {seat: sum(state.pieces_left[seat]) for seat in tied}
            most = max(left.values())
            tied = [seat for seat in tied if left[seat] == most]
        return Outcome(scores=scores, winners=tied, reason=state.finished)

    # --- what players see -----------------------------------------------------------------------

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """The whole game as everybody sees it (CirKis has no hidden information)."""
        owners: list[int | None] = [None] * FIELD_COUNT
        for owner, mask in enumerate(state.covered):
            for i in fields_of(mask):
                owners[i] = owner
        return {
            "seats": state.seats,
            "owners": owners,
            "leader": self._leader_json(state),
            "scores": list(state.scores),
            "pieces_left": [state.pieces_of(s) for s in range(state.seats)],
            "to_move": self.to_move(state),
            "free_turn": state.free_turn,
            "first_sliver_played": state.first_sliver_played,
            "completed": [completion.to_json() for completion in state.completed],
            "lost_turns": list(state.lost_turns),
            "last_events": [event.to_json() for event in state.events],
            "finished": state.finished,
            "target": state.target,
            "center_ring": state.center_ring,
            "long_game": state.long_game,
            "round": state.round,
        }

    def _leader_json(self, state: GameState) -> dict[str, Any] | None:
        if state.leader is None:
            return None
        return {
            "seat": state.leader_seat,
            "piece": state.leader.piece,
            "fields": list(state.leader.fields),
        }

    def parse_move(self, data: Mapping[str, Any]) -> Placement:
        shape = 'A move is {"piece": "big_slice", "fields": [25, 35, 36]}.'
        if not isinstance(data, Mapping) or set(data) != {"piece", "fields"}:
            raise IllegalMove("malformed", shape)
        piece, fields = data["piece"], data["fields"]
        if not isinstance(piece, str) or piece not in PIECES:
            raise IllegalMove(
                "malformed",
                f"There is no piece {piece!r}: pieces are {', '.join(PIECE_KEYS)}.",
            )
        if not isinstance(fields, list) or not fields or any(type(i) is not int for i in fields):
            raise IllegalMove("malformed", f"fields is a list of field ids. {shape}")
        if any(not 0 <= i < FIELD_COUNT for i in fields):
            raise IllegalMove("malformed", f"Fields are numbered 0 to {FIELD_COUNT - 1}.")
        if len(set(fields)) != len(fields):
            raise IllegalMove("malformed", "A field appears more than once in fields.")
        found = placement(piece, fields)
        if found is None:
            raise IllegalMove("illegal_move", f"Those fields don't fit a {_name(piece)}.")
        return found

    def move_to_json(self, move: Placement) -> dict[str, Any]:
        return {"piece": move.piece, "fields": sorted(move.fields)}

    def log_entry(self, before: GameState, move: Placement, after: GameState) -> LoggedMove:
        """Everything is public: the placement, its completions, free and lost turns."""
        free = next((e.reason for e in after.events if e.type == "free_turn"), None)
        return LoggedMove(
            public={
                "seat": before.turn,
                **self.move_to_json(move),
                "scored": [
                    e.completion.to_json() for e in after.events if e.completion is not None
                ],
                "free_turn": free,
                "lost_turns": [e.seat for e in after.events if e.type == "lost_turn"],
                "events": [event.to_json() for event in after.events],
            }
        )

    # --- storage --------------------------------------------------------------------------------

    def encode(self, state: GameState) -> dict[str, Any]:
        return {
            "covered": [format(mask, "x") for mask in state.covered],
            "pieces_left": [state.pieces_of(s) for s in range(state.seats)],
            "scores": list(state.scores),
            "turn": state.turn,
            "leader": self._leader_json(state),
            "free_turn": state.free_turn,
            "first_sliver_played": state.first_sliver_played,
            "completed": [completion.to_json() for completion in state.completed],
            "lost_turns": list(state.lost_turns),
            "events": [event.to_json() for event in state.events],
            "finished": state.finished,
            "options": {"center_ring": state.center_ring, "long_game": state.long_game},
            "round": state.round,
        }

    def decode(self, data: Mapping[str, Any]) -> GameState:
        covered = [fields_of(int(mask, 16)) for mask in data["covered"]]
        leader = data.get("leader")
        options = data.get("options", {})
        state = position(
            covered=covered,
            pieces_left=data["pieces_left"],
            scores=data["scores"],
            to_move=data["turn"],
            leader=None if leader is None else (leader["piece"], leader["fields"]),
            free_turn=data.get("free_turn", False),
            first_sliver_played=data.get("first_sliver_played", False),
            center_ring=bool(options.get("center_ring", False)),
            long_game=bool(options.get("long_game", False)),
        )
        finished = data.get("finished")
        return replace(
            state,
            completed=tuple(Completion.from_json(c) for c in data.get("completed", ())),
            lost_turns=tuple(int(s) for s in data.get("lost_turns", ())),
            events=tuple(Event.from_json(e) for e in data.get("events", ())),
            finished=None if finished is None else str(finished),
            round=int(data.get("round", 0)),
        )


def position(
    *,
    covered: Sequence[Iterable[int]],
    pieces_left: Sequence[Mapping[str, int] | None] | None = None,
    scores: Sequence[int] | None = None,
    to_move: int = 0,
    leader: tuple[str, Iterable[int]] | None = None,
    free_turn: bool = False,
    first_sliver_played: bool = False,
    center_ring: bool = False,
    long_game: bool = False,
) -> GameState:
    """A state built by hand, for tests and puzzles.

    `covered` gives the field ids each seat covers (its length is the number of seats).
    `pieces_left` gives each seat's pieces as ``{piece: count}`` — pieces not named are 0 — or
    None for a full set (the default for every seat). `leader` is ``(piece, field ids)``: a
    placement of that piece on fields all covered by one seat, its owner. Raises ValueError on
    anything that is not a position.
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
        turn=to_move,
        leader=lead,
        leader_seat=lead_seat,
        free_turn=free_turn,
        first_sliver_played=first_sliver_played,
        center_ring=center_ring,
        long_game=long_game,
        target=LONG_TARGET if long_game else TARGET,
    )


RULES: Final = CirKisRules()
