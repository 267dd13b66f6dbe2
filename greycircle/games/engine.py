"""The contract between the game platform and the pure rules engines.

Each game app has a `rules.py` exposing `RULES`, an object implementing `Rules`. Engines are pure:
no Django, no I/O, no clock, no global random. Everything the platform stores goes through
`encode`/`decode`; everything a client sees goes through `view` and `move_to_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

State = TypeVar("State")
Move = TypeVar("Move")


class IllegalMove(Exception):
    """A move the rules reject. `code` is "illegal_move" or "malformed"; `message` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game: a score per seat, the winning seats and why it ended."""

    scores: list[int]
    winners: list[int]
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "winners": list(self.winners), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """One entry of a game's log as the rules describe it for a viewer.

    `public` is what everybody may see; `private` maps a seat to extra detail only that seat may see
    (for example the card a King's Corner player drew).
    """

    public: dict[str, Any]
    private: dict[int, dict[str, Any]] = field(default_factory=dict)


@runtime_checkable
class Rules(Protocol[State, Move]):
    kind: str
    min_seats: int
    max_seats: int

    def new_game(self, seats: int, *, seed: int, options: Mapping[str, Any]) -> State:
        """A fresh game, fully determined by `seats`, `seed` and `options`."""
        ...

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Normalised options with defaults filled in; raises IllegalMove("malformed", ...)."""
        ...

    def to_move(self, state: State) -> int | None:
        """The seat to act, or None when the game is over."""
        ...

    def legal_moves(self, state: State) -> list[Move]: ...

    def play(self, state: State, move: Move) -> State:
        """The state after `move`; raises IllegalMove. Never mutates `state`."""
        ...

    def outcome(self, state: State) -> Outcome | None: ...

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None = spectator); never another seat's hidden information."""
        ...

    def parse_move(self, data: Mapping[str, Any]) -> Move: ...

    def move_to_json(self, move: Move) -> dict[str, Any]: ...

    def log_entry(self, before: State, move: Move, after: State) -> LoggedMove:
        """How `move` appears in the log, split into what all may see and what single seats may."""
        ...

    def encode(self, state: State) -> dict[str, Any]: ...

    def decode(self, data: Mapping[str, Any]) -> State: ...


class ComputerPlayer(Protocol[State, Move]):
    """`<game>/ai.py`'s entry point: the move a computer seat at `level` makes in `state`.

    `budget_ms` caps thinking time. Levels that do not search are deterministic for a given
    `seed`; a level that searches until a deadline may read the clock (the one exception to
    the engines' purity), and then its seed only breaks ties.
    """

    def __call__(self, state: State, *, level: str, seed: int, budget_ms: int) -> Move: ...


@runtime_checkable
class RecordNotation(Protocol[State, Move]):
    """Optional: a kind whose games can be written as a text record and replayed from one."""

    def record(self, state: State) -> str:
        """The moves so far as a record (Circles: ``"c5d6c3"``)."""
        ...

    def parse_record(self, text: str) -> list[Move]:
        """The moves of a record, checked for form only; raises IllegalMove("malformed", ...)."""
        ...
