"""CirKis as Grey Circle Games plays it: the pure rules engine.

Pure Python: no Django, no I/O, no clock, no randomness at all (CirKis has no chance, so `seed` is
ignored). `RULES` implements `greycircle.games.engine.Rules` over `cirkis.state.GameState`
(re-exported here with `position()` and the constants). The board, the pieces and every placement
of every piece come from `cirkis.board`; scoring is `cirkis.scoring`; how a round and the game end
(and the long game's rounds) is `cirkis.rounds`; the state and its storage are `cirkis.state`.

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

Free turns, lost turns and the end of a round
---------------------------------------------
After a placement `play` scores the shapes it completed (`cirkis.scoring`) — in ``scores`` (the
totals) and ``round_scores`` (this round's points; the same outside the long game) —, then:

1. if the placer has no pieces left it went out: +10 (event ``went_out``), always — also when
   the same piece took a seat to 40;
2. if a seat has 40 or more points in this round, the round ends at once: ``"target"``
   (several seats arriving together: the highest score wins, as always);
3. else if the placer went out, the round ends: ``"went_out"``;
4. if the placement earned a free turn, the placer moves again with ``free_turn`` set. A placement
   earns one (at most one, reasons checked in this order, the first that applies is reported) when
   * ``"filled"`` — every field touching the placed piece (by edge or corner, the piece's own
     fields excluded) is covered after the placement: the piece filled a hole. The rim closes a
     space the way covered fields do (fields off the board do not exist);
   * ``"center_star"`` — it covered the last of the Center Star's five darts;
   * ``"first_sliver"`` — it is the first Sliver of the game (or round); later Slivers earn nothing.
   A free-turn piece can earn another free turn. If the placer cannot place any piece touching a
   piece on the board, the free turn just ends (event ``free_turn_unused``; it is not a lost turn)
   and play passes on as after any placement;
5. otherwise the next seats in order must touch the new Leader. A seat that has no such placement
   loses its turn automatically (event ``lost_turn``; the Leader stays), inside this same `play`.
   If every seat in turn — the placer included — loses its turn, nobody can place a piece: the
   round ends, ``"blocked"``.

When a round ends, `cirkis.rounds.end_round` ends the game (``finished`` is the reason) or, in
the long game, starts the next round: the game ends after the round in which a seat's total
reaches 100 (``"target"``), or after three scoreless rounds in a row (``"blocked"``); each new
round is started by the next seat (round ``r`` by seat ``r mod seats``).

`to_move` is therefore always a seat that has a legal placement, or None once the game is over.

Outcome: highest score (total) wins; a tie goes to the tied seat with the most unplayed pieces;
still tied, all of those seats share the win. ``Outcome.scores`` are the points.

What a seat sees (`view`) — CirKis hides nothing, every seat and spectators see the same::

    {"seats": 2, "owners": [0, null, 1, ...],            # 165 entries: the seat covering a field
     "leader": {"seat": 0, "piece": "hook", "fields": [12, 40]} | null,
     "scores": [15, 10], "round_scores": [15, 10],     # totals; points in this round
     "pieces_left": [{"big_slice": 3, ...}, ...],
     "to_move": 1 | null, "free_turn": false, "first_sliver_played": true,
     "completed": [{"shape": "C3", "by": 0, "majority": 1, "scores": {"0": 5, "1": 10}}, ...],
     "lost_turns": [1],                                # seats that lost their turn just now
     "last_events": [{"type": "completed", ...}, {"type": "lost_turn", "seat": 1}],
     "finished": null | "target" | "went_out" | "blocked",
     "target": 40, "center_ring": false, "long_game": false, "round": 0,
     "scoreless_rounds": 0}

``target`` is the total that ends the game (40; 100 in the long game, whose rounds each end at
40 in ``round_scores``); ``scoreless_rounds`` counts the long game's rounds in a row without a
point (three end it).

Events (``last_events``, and ``events`` in the log): ``{"type": "completed", "shape", "by",
"majority", "scores"}``, ``{"type": "free_turn", "seat", "reason"}``, ``{"type":
"free_turn_unused", "seat"}``, ``{"type": "lost_turn", "seat"}``, ``{"type": "went_out", "seat",
"points": 10}``, ``{"type": "round_over", "reason", "round"}`` and ``{"type": "game_over",
"reason"}``.

The log (`log_entry`, public only): ``{"seat", "piece", "fields", "scored": [completion...],
"free_turn": reason | null, "lost_turns": [seats], "events": [...]}``.

Storage (`encode`, `decode`): see `cirkis.state`; states stored by earlier versions still decode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    placement,
)
from cirkis.rounds import end_round
from cirkis.scoring import completions
from cirkis.state import (
    FULL_SET,
    GO_OUT_BONUS,
    LONG_TARGET,
    MAX_SEATS,
    MIN_SEATS,
    PIECE_INDEX,
    PIECE_KEYS,
    SCORELESS_ROUNDS,
    TARGET,
    Event,
    GameState,
    decode_state,
    encode_state,
    leader_json,
    position,
)
from greycircle.games.engine import IllegalMove, LoggedMove, Outcome

__all__ = [
    "FULL_SET",
    "GO_OUT_BONUS",
    "LONG_TARGET",
    "MAX_SEATS",
    "MIN_SEATS",
    "PIECE_INDEX",
    "PIECE_KEYS",
    "RULES",
    "SCORELESS_ROUNDS",
    "TARGET",
    "CirKisRules",
    "Event",
    "GameState",
    "Placement",
    "position",
    "required_mask",
]

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
            round_scores=(0,) * seats,
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
        in_round = list(state.round_scores)
        events: list[Event] = []
        for completion in scored:
            for who, points in completion.awards:
                scores[who] += points
                in_round[who] += points
            events.append(Event(type="completed", completion=completion))
        is_sliver = PIECE_INDEX[move.piece] == SLIVER

        def after(turn: int, free_turn: bool, lost: Sequence[int]) -> GameState:
            return GameState(
                covered=tuple(covered),
                pieces_left=tuple(pieces),
                scores=tuple(scores),
                round_scores=tuple(in_round),
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
                scoreless_rounds=state.scoreless_rounds,
            )

        reached = max(in_round) >= TARGET
        went_out = not any(mine)
        if went_out:  # the bonus is always scored, also by the piece that reached 40
            scores[seat] += GO_OUT_BONUS
            in_round[seat] += GO_OUT_BONUS
            events.append(Event(type="went_out", seat=seat, points=GO_OUT_BONUS))
        if reached:
            return end_round(after(seat, False, ()), "target", events)
        if went_out:
            return end_round(after(seat, False, ()), "went_out", events)

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
        return end_round(after(seat, False, lost), "blocked", events)

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
            "leader": leader_json(state),
            "scores": list(state.scores),
            "round_scores": list(state.round_scores),
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
            "scoreless_rounds": state.scoreless_rounds,
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
        return encode_state(state)

    def decode(self, data: Mapping[str, Any]) -> GameState:
        return decode_state(data)


RULES: Final = CirKisRules()
