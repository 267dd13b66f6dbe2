"""Live games' clocks: an initial time per seat and an increment per turn, kept by the server.

A game is either *correspondence* (`Game.clock_initial_ms` is None: days per move,
greycircle.games.deadlines) or *live*: each seat starts with `clock_initial_ms` and gets
`clock_increment_ms` back after each of its turns. A *turn* is what is timed: in King's Corner a
seat's several plays and its draw are one turn, its clock running from the first to the last.

The server is the authority. A seat's time runs from the commit that made it its turn
(`Game.clock_started_at`) to the arrival of its move (the `arrived_at` of the service, taken as
the request or frame came in, before any wait for the game's lock), less `lag_allowance_ms()` for
each move, so that a slow network does not flag anyone: a move is charged
`max(0, elapsed - allowance)`. The time between a move's arrival and its commit is nobody's.

A seat's first turn has a limit of its own (`first_move_seconds()`) instead of its clock, as on
lichess: a player who never starts does not cost the other a rated game, the game is aborted.

`Game.flag_at` is when the running seat's time (or first-turn limit) is up: the allowance
included, so a move arriving before it is always in time. It is None whenever no clock runs (the
game is not in play, a correspondence game, a seat a computer took over is to move). The clocks'
loop ends games whose `flag_at` has passed (greycircle.games.flags), and a move arriving after it
ends the game itself instead of being played (`services.move_submit`).

Everything here is arithmetic on a game row inside its service's transaction: no queries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    from greycircle.games.models import Game

MINUTES_MIN, MINUTES_MAX = 1, 60
INCREMENT_MAX = 60


def lag_allowance_ms() -> int:
    """What each move's charge is reduced by, for the network's delay
    (GAMES_CLOCK_LAG_ALLOWANCE_MS)."""
    return int(settings.GAMES_CLOCK_LAG_ALLOWANCE_MS)


def first_move_seconds() -> float:
    """A seat's first turn in a live game: past this, the game is aborted, unrated."""
    return float(settings.GAMES_CLOCK_FIRST_MOVE_SECONDS)


@dataclass(frozen=True, slots=True)
class TimeControl:
    """`minutes` each seat starts with, `increment` seconds added after each of its turns."""

    minutes: int
    increment: int

    @property
    def label(self) -> str:
        """As players say it: "3+2"."""
        return f"{self.minutes}+{self.increment}"

    @property
    def initial_ms(self) -> int:
        return self.minutes * 60_000

    @property
    def increment_ms(self) -> int:
        return self.increment * 1000

    @classmethod
    def parse(cls, label: str) -> TimeControl:
        """ "3+2" -> TimeControl(3, 2); ValueError for anything else or outside the limits."""
        match = re.fullmatch(r"(\d{1,2})\+(\d{1,2})", label.strip())
        if match is None:
            raise ValueError(f"A time control is written minutes+seconds, such as 3+2: {label!r}.")
        return time_control_check(minutes=int(match[1]), increment=int(match[2]))


def time_control_check(*, minutes: Any, increment: Any) -> TimeControl:
    """The time control of `minutes` (1 to 60) and `increment` seconds (0 to 60); ValueError,
    in words a player reads, for anything else."""
    if not isinstance(minutes, int) or isinstance(minutes, bool):
        raise ValueError("The minutes of a time control are a whole number.")
    if not isinstance(increment, int) or isinstance(increment, bool):
        raise ValueError("The increment of a time control is a whole number of seconds.")
    if not MINUTES_MIN <= minutes <= MINUTES_MAX:
        raise ValueError(
            f"A live game gives each player {MINUTES_MIN} to {MINUTES_MAX} minutes, not {minutes}."
        )
    if not 0 <= increment <= INCREMENT_MAX:
        raise ValueError(f"The increment is 0 to {INCREMENT_MAX} seconds a turn, not {increment}.")
    return TimeControl(minutes, increment)


def time_control_of(game: Game) -> TimeControl | None:
    """The live `game`'s time control; None for a correspondence game."""
    if game.clock_initial_ms is None:
        return None
    return TimeControl(game.clock_initial_ms // 60_000, game.clock_increment_ms // 1000)


def clock_start(game: Game, *, seat_count: int, now: datetime) -> None:
    """Set the clocks of the live `game` that starts now: every seat's full time, none of them
    past its first turn."""
    if game.clock_initial_ms is None:
        return
    game.clock_remaining_ms = [game.clock_initial_ms] * seat_count
    game.clock_moved = [False] * seat_count
    game.clock_started_at = now


def clock_charge(
    game: Game, *, seat: int, turn_over: bool, arrived_at: datetime, now: datetime
) -> None:
    """Charge `seat` for the move that arrived at `arrived_at` and is being played at `now`.

    Past its first turn, the seat pays for the time since its clock started, less the lag
    allowance, and gets its increment if the move ended its turn; its next stretch (another
    play of the same turn) starts now. In its first turn nothing is charged, and the turn's
    limit runs from its start until the turn is over."""
    if game.clock_initial_ms is None or not game.clock_remaining_ms:
        return
    remaining = list(game.clock_remaining_ms)
    moved = list(game.clock_moved)
    if moved[seat]:
        charged = max(0, elapsed_ms(game.clock_started_at, arrived_at) - lag_allowance_ms())
        remaining[seat] = max(0, remaining[seat] - charged)
        if turn_over:
            remaining[seat] += game.clock_increment_ms
        game.clock_started_at = now
    elif turn_over:
        moved[seat] = True
        game.clock_started_at = now
    game.clock_remaining_ms = remaining
    game.clock_moved = moved


def clock_restart(game: Game, *, now: datetime) -> None:
    """The seat to move starts a stretch now without being charged for the last one (a seat a
    computer took over, a takeback): its clock starts again from what it had."""
    if game.clock_initial_ms is not None:
        game.clock_started_at = now


def flag_at_of(game: Game, *, running: bool) -> datetime | None:
    """When the time of the seat to move of the live `game` is up, if its clock is `running`."""
    if game.clock_initial_ms is None or not running or game.to_move is None:
        return None
    if game.clock_started_at is None or not game.clock_remaining_ms:
        return None
    if not game.clock_moved[game.to_move]:
        return game.clock_started_at + timedelta(seconds=first_move_seconds())
    left = game.clock_remaining_ms[game.to_move] + lag_allowance_ms()
    return game.clock_started_at + timedelta(milliseconds=left)


def is_first_turn(game: Game, seat: int) -> bool:
    return bool(game.clock_moved) and not game.clock_moved[seat]


def clock_json(game: Game, *, now: datetime) -> dict[str, Any] | None:
    """The clocks as the envelope and the lists show them; None for a correspondence game.

    `remaining_ms` is each seat's time as of `running_since` (the running seat's, at the start
    of its stretch): a client shows the running seat's time as that less the time since, on the
    server's clock (`server_time`, when this was written, gives the offset to its own)."""
    control = time_control_of(game)
    if control is None:
        return None
    running = game.to_move if game.flag_at is not None else None
    first_turn = running is not None and is_first_turn(game, running)
    return {
        "time_control": control.label,
        "initial_ms": game.clock_initial_ms,
        "increment_ms": game.clock_increment_ms,
        "remaining_ms": list(game.clock_remaining_ms),
        "running": running,
        "running_since": game.clock_started_at if running is not None else None,
        "first_move_deadline": game.flag_at if first_turn else None,
        "flag_at": game.flag_at,
        "server_time": now,
        "lag_allowance_ms": lag_allowance_ms(),
    }


def elapsed_ms(start: datetime | None, end: datetime) -> int:
    if start is None:
        return 0
    return max(0, int((end - start) / timedelta(milliseconds=1)))
