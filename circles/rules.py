"""Circles — Othello as Grey Circle Games plays it: the pure rules engine.

Pure Python: no Django, no I/O, no clock, no global random. Two layers:

* **Plies** — `Position` is one board with the side to move, python-chess style: `legal_moves()`
  (a bitboard), `play(square)`, `pass_turn()`, `is_game_over()`. A pass is a ply of its own here,
  which is what `perft` counts.
* **The platform** — `RULES` (a `CirclesRules`) implements `greycircle.games.engine.Rules` over
  `GameState` (a position plus the game's record). Passing is automatic: after a move, a player who
  cannot move passes at once and `GameState.passed` (and the move's log entry) says so.

Squares and bitboards
---------------------
Columns ``a``-``h`` run left to right and rows ``1``-``8`` top to bottom, so ``a1`` is the top-left
corner. A square is an ``int`` 0-63 in reading order: ``index = 8 * (row - 1) + column``, so
``a1 = 0``, ``h1 = 7``, ``a2 = 8``, ``h8 = 63``. A bitboard is an ``int`` with bit ``index`` set for
each square it holds.

Lists of squares that leave the engine (legal moves, flipped discs) are in *square-name order*:
``a1, a2, …, a8, b1, …, h8`` (column letter, then row number) — the order people sort names in,
which puts white's first moves as c5, d6, e3, f4.

Seats and colours
-----------------
Seat 0 plays white (``WHITE = 0``) and moves first; seat 1 plays black (``BLACK = 1``).

JSON shapes
-----------
* Move: ``{"square": "c5"}`` (case-insensitive on input, lower case on output).
* ``view`` (the same for every seat — Circles hides nothing)::

      {"board": ["........", ..., "...WB...", ...],   # 8 rows, row 1 first; W, B or .
       "discs": [white_count, black_count],
       "to_move": 0 | 1 | None,                       # None once the game is over
       "last_move": "c5" | None,
       "passed": [seat, ...],                         # who had to pass after the last move
       "record": "c5d6c3"}

* Log entry (``log_entry(...).public``): ``{"square": "c5", "flipped": ["d5"], "passed": [1]}``
  where ``passed`` lists the seat that had to pass straight after this move (empty almost always).
* Storage (``encode``): ``{"white": "<16 hex digits>", "black": "<16 hex digits>", "turn": 0 | 1,
  "record": "c5d6…", "passed": [...]}`` — bitboards are hex strings because JavaScript numbers
  cannot hold 64-bit integers.

Result
------
The game ends when neither side can move (a full board and a wiped-out colour are special cases).
``Outcome.scores`` is ``[white discs, black discs]``; the seat with more discs wins with reason
``"more_discs"``; equal counts are a tie: ``winners == []``, reason ``"tie"``.

One module past 600 lines on purpose: the bitboard core and the platform's adapter share the
private helpers and constants above, and a reader checks the engine against rules/circles.md in one
place, section by section (move generation, positions, perft, the platform's view).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from greycircle.games.engine import IllegalMove, LoggedMove, Outcome

__all__ = [
    "BLACK",
    "FULL",
    "RULES",
    "SQUARE_NAMES",
    "WHITE",
    "CirclesRules",
    "GameState",
    "Position",
    "RecordError",
    "flip_mask",
    "move_mask",
    "parse_square",
    "perft",
    "square_name",
    "squares_of",
]

WHITE: Final = 0
BLACK: Final = 1
COLOUR_NAMES: Final = ("White", "Black")

FULL: Final = (1 << 64) - 1
"""Every square."""

_INNER_COLUMNS: Final = 0x7E7E7E7E7E7E7E7E
"""Columns b-g: discs that a horizontal or diagonal line can pass through without wrapping."""

COLUMNS: Final = "abcdefgh"
SQUARE_NAMES: Final[tuple[str, ...]] = tuple(
    f"{COLUMNS[index % 8]}{index // 8 + 1}" for index in range(64)
)
_SQUARE_INDEX: Final[dict[str, int]] = {name: index for index, name in enumerate(SQUARE_NAMES)}
_NAME_ORDER_KEY: Final[tuple[int, ...]] = tuple((index % 8) * 8 + index // 8 for index in range(64))
"""Sort key putting squares in name order (a1, a2, …, a8, b1, …)."""

START_WHITE: Final = (1 << _SQUARE_INDEX["d4"]) | (1 << _SQUARE_INDEX["e5"])
START_BLACK: Final = (1 << _SQUARE_INDEX["d5"]) | (1 << _SQUARE_INDEX["e4"])


def square_name(square: int) -> str:
    """``0 -> "a1"``, ``63 -> "h8"``."""
    return SQUARE_NAMES[square]


def parse_square(text: object) -> int:
    """``"c5"`` (any case, surrounding blanks ignored) -> 34; raises IllegalMove("malformed")."""
    index = _SQUARE_INDEX.get(text.strip().lower()) if isinstance(text, str) else None
    if index is None:
        raise IllegalMove("malformed", f"{text!r} is not a square: squares are a1 to h8.")
    return index


def squares_of(bitboard: int) -> list[int]:
    """The squares of `bitboard` in square-name order."""
    squares: list[int] = []
    while bitboard:
        low = bitboard & -bitboard
        squares.append(low.bit_length() - 1)
        bitboard ^= low
    squares.sort(key=_NAME_ORDER_KEY.__getitem__)
    return squares


# --- bitboard move generation ---------------------------------------------------------------
#
# Moves: for each of the 8 directions, grow runs of opponent discs outward from the mover's
# discs one shift at a time (a frontier that dies out as soon as no run continues), and collect
# the squares just beyond each run; empty ones among them are the legal moves. Horizontal and
# diagonal directions use the opponent's discs on columns b-g only, so no run wraps round an edge.
#
# Flips: for a move on `square`, each direction is a precomputed ray mask, looked at only when
# its nearest square holds an opponent disc. The first ray square that does not hold an opponent
# disc ends the line; if it holds one of the mover's discs, every ray square before it flips. On
# rays towards higher indices that square is the lowest set bit of ``ray & ~opponent``, on rays
# towards lower indices the highest.


def move_mask(own: int, opp: int) -> int:
    """The bitboard of legal moves for the side owning `own` against `opp`."""
    inner = opp & _INNER_COLUMNS
    moves = 0
    run = inner & (own << 1)
    while run:
        step = run << 1
        moves |= step
        run = step & inner
    run = inner & (own >> 1)
    while run:
        step = run >> 1
        moves |= step
        run = step & inner
    run = opp & (own << 8)
    while run:
        step = run << 8
        moves |= step
        run = step & opp
    run = opp & (own >> 8)
    while run:
        step = run >> 8
        moves |= step
        run = step & opp
    run = inner & (own << 7)
    while run:
        step = run << 7
        moves |= step
        run = step & inner
    run = inner & (own >> 7)
    while run:
        step = run >> 7
        moves |= step
        run = step & inner
    run = inner & (own << 9)
    while run:
        step = run << 9
        moves |= step
        run = step & inner
    run = inner & (own >> 9)
    while run:
        step = run >> 9
        moves |= step
        run = step & inner
    return moves & FULL & ~(own | opp)


_Rays = tuple[tuple[tuple[int, int], ...], ...]
"""Per square, a tuple of (nearest square, ray mask) pairs."""


def _rays() -> tuple[_Rays, _Rays]:
    """Per square: (nearest square, ray mask) for each ray of 2+ squares, towards higher indices
    and towards lower indices."""
    up: list[tuple[tuple[int, int], ...]] = []
    down: list[tuple[tuple[int, int], ...]] = []
    for square in range(64):
        row, column = divmod(square, 8)
        higher: list[tuple[int, int]] = []
        lower: list[tuple[int, int]] = []
        for d_row in (-1, 0, 1):
            for d_column in (-1, 0, 1):
                if d_row == d_column == 0:
                    continue
                ray: list[int] = []
                r, c = row + d_row, column + d_column
                while 0 <= r < 8 and 0 <= c < 8:
                    ray.append(1 << (8 * r + c))
                    r, c = r + d_row, c + d_column
                if len(ray) >= 2:  # a flip needs an opponent disc and a disc beyond it
                    entry = (ray[0], sum(ray))
                    (higher if 8 * d_row + d_column > 0 else lower).append(entry)
        up.append(tuple(higher))
        down.append(tuple(lower))
    return tuple(up), tuple(down)


_RAYS_UP, _RAYS_DOWN = _rays()


def flip_mask(square: int, own: int, opp: int) -> int:
    """The discs a move on the empty `square` flips (0: the move is illegal)."""
    flips = 0
    for near, ray in _RAYS_UP[square]:
        if opp & near:
            end = ray & ~opp
            end &= -end
            if end & own:
                flips |= (end - 1) & ray
    for near, ray in _RAYS_DOWN[square]:
        if opp & near:
            end = ray & ~opp
            if end:
                length = end.bit_length()
                if own >> (length - 1) & 1:
                    flips |= ray >> length << length
    return flips


# --- positions --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Position:
    """A board and the colour to move. Immutable: `play` and `pass_turn` return new positions.

    `white` and `black` are bitboards; `turn` is WHITE (0) or BLACK (1), which is also the seat.
    """

    white: int
    black: int
    turn: int = WHITE

    def __post_init__(self) -> None:
        for name in ("white", "black"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= FULL:
                raise ValueError(f"Position.{name} must be a 64-bit bitboard, not {value!r}.")
        if self.white & self.black:
            raise ValueError("A square cannot hold a white and a black disc.")
        if self.turn not in (WHITE, BLACK) or isinstance(self.turn, bool):
            raise ValueError(f"Position.turn is 0 (white) or 1 (black), not {self.turn!r}.")

    @classmethod
    def start(cls) -> Position:
        """White d4, e5; black d5, e4; white to move."""
        return cls(START_WHITE, START_BLACK, WHITE)

    @classmethod
    def from_diagram(cls, diagram: str, *, turn: int = WHITE) -> Position:
        """A position from 8 rows of 8 cells, row 1 first: ``W`` white, ``B`` black, ``.`` empty.

        Blank lines and spaces between cells are ignored; letters may be lower case::

            Position.from_diagram('''
                . . . . . . . .
                . . . . . . . .
                . . . . . . . .
                . . . W B . . .
                . . . B W . . .
                . . . . . . . .
                . . . . . . . .
                . . . . . . . .
            ''', turn=BLACK)
        """
        rows = ["".join(line.split()) for line in diagram.splitlines()]
        rows = [row for row in rows if row]
        if len(rows) != 8 or any(len(row) != 8 for row in rows):
            raise ValueError("A diagram has 8 rows of 8 cells (W, B or .).")
        white = black = 0
        for index, cell in enumerate("".join(rows).upper()):
            if cell == "W":
                white |= 1 << index
            elif cell == "B":
                black |= 1 << index
            elif cell not in ".-":
                raise ValueError(f"{cell!r} at {SQUARE_NAMES[index]} is not W, B or '.'.")
        return cls(white, black, turn)

    def rows(self) -> list[str]:
        """The board as 8 strings, row 1 first: ``W`` white, ``B`` black, ``.`` empty."""
        cells = [
            "W" if self.white >> index & 1 else "B" if self.black >> index & 1 else "."
            for index in range(64)
        ]
        return ["".join(cells[row * 8 : row * 8 + 8]) for row in range(8)]

    def diagram(self) -> str:
        """The board as `from_diagram` reads it (the side to move is not shown)."""
        return "\n".join(self.rows())

    def __str__(self) -> str:
        return f"{self.diagram()}\n{COLOUR_NAMES[self.turn]} to move"

    @property
    def own(self) -> int:
        """The discs of the side to move."""
        return self.black if self.turn else self.white

    @property
    def opponent(self) -> int:
        """The discs of the side not to move."""
        return self.white if self.turn else self.black

    @property
    def empty(self) -> int:
        return FULL & ~(self.white | self.black)

    @property
    def counts(self) -> tuple[int, int]:
        """(white discs, black discs)."""
        return self.white.bit_count(), self.black.bit_count()

    def colour_at(self, square: int) -> int | None:
        if self.white >> square & 1:
            return WHITE
        if self.black >> square & 1:
            return BLACK
        return None

    def legal_moves(self) -> int:
        """The bitboard of squares the side to move may play (0: pass, or the game is over)."""
        return move_mask(self.own, self.opponent)

    def legal_squares(self) -> list[int]:
        """`legal_moves()` as a list in square-name order."""
        return squares_of(self.legal_moves())

    def is_legal(self, square: int) -> bool:
        return bool(self.legal_moves() >> square & 1)

    def flips(self, square: int) -> int:
        """The discs a move on `square` would flip (0 when the move is illegal)."""
        if (self.white | self.black) >> square & 1:
            return 0
        return flip_mask(square, self.own, self.opponent)

    def must_pass(self) -> bool:
        """The side to move has no move but the other side has one."""
        own, opp = self.own, self.opponent
        return not move_mask(own, opp) and bool(move_mask(opp, own))

    def is_game_over(self) -> bool:
        """Neither side can move (full board, a colour wiped out, or both blocked)."""
        own, opp = self.own, self.opponent
        return not move_mask(own, opp) and not move_mask(opp, own)

    def play(self, square: int) -> Position:
        """The position after the side to move plays `square` (one ply: no automatic pass).

        Raises IllegalMove("illegal_move", ...) saying why the move is not allowed.
        """
        if not isinstance(square, int) or isinstance(square, bool) or not 0 <= square < 64:
            raise IllegalMove("malformed", f"A square is a number from 0 to 63, not {square!r}.")
        name = SQUARE_NAMES[square]
        if (self.white | self.black) >> square & 1:
            raise IllegalMove("illegal_move", f"{name} is taken.")
        own, opp = self.own, self.opponent
        flips = flip_mask(square, own, opp)
        if not flips:
            if self.is_game_over():
                raise IllegalMove("illegal_move", "The game is over.")
            raise IllegalMove("illegal_move", f"{name} flips no discs.")
        own |= flips | (1 << square)
        opp ^= flips
        if self.turn == WHITE:
            return Position(own, opp, BLACK)
        return Position(opp, own, WHITE)

    def pass_turn(self) -> Position:
        """The position after the side to move passes; allowed only when it has no move."""
        if self.legal_moves():
            raise IllegalMove(
                "illegal_move", f"{COLOUR_NAMES[self.turn]} has a legal move and may not pass."
            )
        if self.is_game_over():
            raise IllegalMove("illegal_move", "The game is over.")
        return Position(self.white, self.black, 1 - self.turn)


# --- perft --------------------------------------------------------------------------------------


def perft(position: Position, depth: int) -> int:
    """The number of ply sequences of length `depth` from `position`.

    A pass is a ply of its own; a finished game is one leaf whatever depth is left. From the
    start: 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800 for depths 1-11.
    """
    if depth < 0:
        raise ValueError("perft depth cannot be negative.")
    if depth == 0:
        return 1
    return _perft(position.own, position.opponent, depth)


def _perft(own: int, opp: int, depth: int) -> int:
    # Raw ints, no objects. Leaves are counted in bulk one ply early: a position with moves has
    # one leaf per move, a position without has one (its pass, or the end of the game).
    moves = move_mask(own, opp)
    if depth == 1:
        return moves.bit_count() or 1
    if not moves:
        if move_mask(opp, own):
            return _perft(opp, own, depth - 1)
        return 1
    total = 0
    flip = flip_mask
    if depth == 2:
        count_moves = move_mask
        while moves:
            bit = moves & -moves
            moves ^= bit
            flips = flip(bit.bit_length() - 1, own, opp)
            total += count_moves(opp ^ flips, own | flips | bit).bit_count() or 1
        return total
    while moves:
        bit = moves & -moves
        moves ^= bit
        flips = flip(bit.bit_length() - 1, own, opp)
        total += _perft(opp ^ flips, own | flips | bit, depth - 1)
    return total


# --- the platform's view: games with automatic passes ---------------------------------------


@dataclass(frozen=True, slots=True)
class GameState:
    """A Circles game as the platform keeps it.

    `position` always has a side to move that can move, unless the game is over: passes are made
    automatically. `record` is every square played since the start (passes are not written);
    `passed` lists the seats that had to pass right after the last move (or, for a game that
    starts blocked, before the first).
    """

    position: Position
    record: tuple[int, ...] = ()
    passed: tuple[int, ...] = ()


class RecordError(IllegalMove):
    """A game record that cannot be replayed; `move_index` is the 0-based index of the bad move."""

    def __init__(self, code: str, message: str, *, move_index: int) -> None:
        super().__init__(code, message)
        self.move_index = move_index


def _settle(position: Position) -> tuple[Position, tuple[int, ...]]:
    """`position` after the automatic pass, if the side to move must pass; and who passed."""
    own, opp = position.own, position.opponent
    if move_mask(own, opp) or not move_mask(opp, own):
        return position, ()
    return Position(position.white, position.black, 1 - position.turn), (position.turn,)


def _hex(bitboard: int) -> str:
    return f"{bitboard:016x}"


def _unhex(value: Any, name: str) -> int:
    if not isinstance(value, str) or len(value) != 16:
        raise ValueError(f"Stored Circles {name} must be 16 hex digits, not {value!r}.")
    try:
        return int(value, 16)
    except ValueError:
        raise ValueError(f"Stored Circles {name} must be 16 hex digits, not {value!r}.") from None


class CirclesRules:
    """`greycircle.games.engine.Rules` for Circles; a move is a square index (see module doc)."""

    kind = "circles"
    min_seats = 2
    max_seats = 2

    # -- games

    def new_game(self, seats: int, *, seed: int, options: Mapping[str, Any]) -> GameState:
        """The start position (the seed is unused: Circles has no chance)."""
        if seats != 2:
            raise ValueError(f"Circles is played by 2 players, not {seats}.")
        self.validate_options(options)
        return self.from_position(Position.start())

    def from_position(self, position: Position) -> GameState:
        """A game that starts from `position` (passing at once if its side to move cannot move)."""
        settled, passed = _settle(position)
        return GameState(settled, (), passed)

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Circles has no options: anything given is refused."""
        if not isinstance(options, Mapping):
            raise IllegalMove("malformed", "Options are a JSON object.")
        if options:
            unknown = ", ".join(sorted(str(key) for key in options))
            raise IllegalMove("malformed", f"Circles takes no options (got: {unknown}).")
        return {}

    def to_move(self, state: GameState) -> int | None:
        if state.position.is_game_over():
            return None
        return state.position.turn

    def legal_moves(self, state: GameState) -> list[int]:
        """The seat to move's squares, in square-name order ([] when the game is over)."""
        return state.position.legal_squares()

    def play(self, state: GameState, move: int) -> GameState:
        """Play `move` for the seat to move, then pass for the next seat if it cannot move."""
        after = state.position.play(move)
        settled, passed = _settle(after)
        return GameState(settled, (*state.record, move), passed)

    def outcome(self, state: GameState) -> Outcome | None:
        """None while the game goes on; then scores [white, black], more discs wins, or a tie."""
        position = state.position
        if not position.is_game_over():
            return None
        white, black = position.counts
        if white == black:
            return Outcome(scores=[white, black], winners=[], reason="tie")
        return Outcome(
            scores=[white, black], winners=[WHITE if white > black else BLACK], reason="more_discs"
        )

    # -- JSON

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """Everything about the game; the same for every seat and for spectators."""
        position = state.position
        return {
            "board": position.rows(),
            "discs": list(position.counts),
            "to_move": self.to_move(state),
            "last_move": SQUARE_NAMES[state.record[-1]] if state.record else None,
            "passed": list(state.passed),
            "record": self.record(state),
        }

    def parse_move(self, data: Mapping[str, Any]) -> int:
        """``{"square": "c5"}`` -> 34. Only the shape is checked here; `play` checks legality."""
        if not isinstance(data, Mapping) or set(data) != {"square"}:
            raise IllegalMove("malformed", 'A Circles move is {"square": "c5"}.')
        square = data["square"]
        if not isinstance(square, str):
            raise IllegalMove("malformed", 'A Circles move is {"square": "c5"}.')
        return parse_square(square)

    def move_to_json(self, move: int) -> dict[str, Any]:
        return {"square": SQUARE_NAMES[move]}

    def log_entry(self, before: GameState, move: int, after: GameState) -> LoggedMove:
        """``{"square": "c5", "flipped": [...], "passed": [seats that had to pass after it]}``."""
        flipped = before.position.flips(move)
        return LoggedMove(
            public={
                "square": SQUARE_NAMES[move],
                "flipped": [SQUARE_NAMES[square] for square in squares_of(flipped)],
                "passed": list(after.passed),
            }
        )

    def encode(self, state: GameState) -> dict[str, Any]:
        position = state.position
        return {
            "white": _hex(position.white),
            "black": _hex(position.black),
            "turn": position.turn,
            "record": self.record(state),
            "passed": list(state.passed),
        }

    def decode(self, data: Mapping[str, Any]) -> GameState:
        """The state `encode` stored; raises ValueError for data `encode` cannot have written."""
        turn = data.get("turn")
        if turn not in (WHITE, BLACK) or isinstance(turn, bool):
            raise ValueError(f"Stored Circles turn must be 0 or 1, not {turn!r}.")
        position = Position(
            _unhex(data.get("white"), "white"), _unhex(data.get("black"), "black"), turn
        )
        record_text = data.get("record", "")
        tokens = (
            [record_text[i : i + 2] for i in range(0, len(record_text), 2)]
            if isinstance(record_text, str)
            else [""]
        )
        if any(token not in _SQUARE_INDEX for token in tokens):
            raise ValueError(f"Stored Circles record is not a record: {record_text!r}.")
        record = tuple(_SQUARE_INDEX[token] for token in tokens)
        passed = data.get("passed", [])
        if not isinstance(passed, list) or any(seat not in (WHITE, BLACK) for seat in passed):
            raise ValueError(f"Stored Circles passes are not seats: {passed!r}.")
        return GameState(position, record, tuple(passed))

    # -- records

    def record(self, state: GameState) -> str:
        """The game record: the squares played, back to back (``"c5d6c3"``); passes not written."""
        return "".join(SQUARE_NAMES[square] for square in state.record)

    def parse_record(self, text: str) -> list[int]:
        """The squares of a record, in order, without checking that they are legal.

        Any case; blanks between moves are allowed. Raises RecordError on a token that is not a
        square.
        """
        moves = "".join(text.split()).lower()
        squares = []
        for index, offset in enumerate(range(0, len(moves), 2)):
            token = moves[offset : offset + 2]
            square = _SQUARE_INDEX.get(token)
            if square is None:
                raise RecordError(
                    "malformed",
                    f"Move {index + 1} of the record, {token!r}, is not a square a1 to h8.",
                    move_index=index,
                )
            squares.append(square)
        return squares

    def from_record(self, text: str) -> GameState:
        """Replay a record from the start (see `parse_record`); passes are inferred.

        Raises RecordError (an IllegalMove) naming the first bad move.
        """
        state = self.new_game(2, seed=0, options={})
        for index, square in enumerate(self.parse_record(text)):
            try:
                state = self.play(state, square)
            except IllegalMove as error:
                raise RecordError(
                    error.code,
                    f"Move {index + 1} of the record, {SQUARE_NAMES[square]}, is illegal: "
                    f"{error.message}",
                    move_index=index,
                ) from None
        return state

    def perft(self, state: GameState, depth: int) -> int:
        """`perft` from `state`'s position (see the module function)."""
        return perft(state.position, depth)


RULES: Final = CirclesRules()
