"""Replays and analyses of games that are over, shaped for one viewer.

A replay is the game replayed from its seed and its move log: every step (the start, then after
each move) as the viewer's seat saw it at that moment (`RULES.view(state, seat)`, a spectator's
view for anyone else) with the move that led there as the log shows it to them. Nothing a step
holds was hidden from them at that step: King's Corner shows each player their own hand as it was
then and never anybody else's (until the game's end shows every hand to all), nor the stock.

Only games that are over have a replay (a replay of a game in play would be a second, slower way
to watch it); whoever may see a game may see its replay. A game that is over never changes, so
each audience's steps are computed once and kept in the cache.

An analysis is the kind's own (`GameKind.analysis`; Circles has one): the platform checks the
game and who asks, the kind's app computes, keeps and shapes it (and limits how many a player
asks for). Only the game's players and staff may ask for one, since it costs the task workers;
whoever may see the game may read it, like the replay: it shows nothing the replay does not.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

from greycircle.games import registry
from greycircle.games.engine import RecordNotation
from greycircle.games.errors import GameInvalid, GamePermissionDenied
from greycircle.games.models import Game
from greycircle.games.selectors import (
    FINISHED_STATUSES,
    move_entry_for_seat,
    seat_index_for,
    seats_json,
)

# A replay's steps are kept this long after the last time they were computed.
REPLAY_CACHE_SECONDS = 24 * 60 * 60


def game_has_replay(*, game: Game) -> bool:
    """Whether `game` is over, having started: a game that has a replay."""
    return game.status in FINISHED_STATUSES and bool(game.state)


def _over(game: Game) -> None:
    """Refuse a game that is not over, or that was stopped before it began."""
    if game.status not in FINISHED_STATUSES:
        raise GameInvalid("game_not_over", "The game is not over yet: it has no replay.")
    if not game.state:
        raise GameInvalid("never_started", "The game was stopped before it started.")


def replay_cache_key(*, game: Game, seat: int | None) -> str:
    audience = "spectators" if seat is None else f"seat{seat}"
    return f"games:replay:{game.pk}:{game.version}:{audience}"


def replay_steps(*, game: Game, seat: int | None) -> list[dict[str, Any]]:
    """Every step of `game` as the holder of `seat` (None: a spectator) saw it, computed."""
    rules = registry.get(game.kind).rules
    state = rules.new_game(len(game.seats.all()), seed=game.seed, options=game.options)
    start = {"number": 0, "to_move": rules.to_move(state), "state": rules.view(state, seat)}
    steps = [{**start, "move": None}]
    for move in game.moves.order_by("number"):
        state = rules.play(state, rules.parse_move(move.data))
        steps.append(
            {
                "number": move.number,
                "to_move": rules.to_move(state),
                "state": rules.view(state, seat),
                "move": move_entry_for_seat(move=move, seat=seat),
            }
        )
    return steps


def replay_for(*, game: Game, viewer: Any) -> dict[str, Any]:
    """The replay of `game` (seats prefetched) as `viewer` may see it; raises GameInvalid for a
    game that is not over."""
    _over(game)
    seat = seat_index_for(game=game, viewer=viewer)
    key = replay_cache_key(game=game, seat=seat)
    steps = cache.get(key)
    if steps is None:
        steps = replay_steps(game=game, seat=seat)
        cache.set(key, steps, REPLAY_CACHE_SECONDS)
    return {
        "id": game.pk,
        "kind": game.kind,
        "status": game.status,
        "options": game.options,
        "seats": seats_json(game=game),
        "you": seat,
        "outcome": game.outcome,
        "move_count": game.move_count,
        "finished_at": game.finished_at,
        "steps": steps,
    }


def _analysis_of(game: Game) -> registry.GameAnalysis:
    game_kind = registry.get(game.kind)
    if game_kind.analysis is None:
        raise GameInvalid("no_analysis", f"{game_kind.title} games have no analysis.")
    _over(game)
    return game_kind.analysis


def analysis_progress(*, status: str, analysed: int, total: int) -> str:
    """How far an analysis is, in words ("Analysed 3 of 60 moves so far.")."""
    if status == "not_requested":
        return "Not analysed yet."
    if status == "ready":
        return f"Analysed all {_moves(total)}." if total != 1 else "Analysed the only move."
    if status == "failed":
        return f"Failed after {analysed} of {_moves(total)}."
    return f"Analysed {analysed} of {_moves(total)} so far."


def _moves(count: int) -> str:
    return f"{count} move{'' if count == 1 else 's'}"


def _with_progress(analysis: dict[str, Any]) -> dict[str, Any]:
    progress = analysis_progress(
        status=analysis["status"], analysed=analysis["analysed"], total=analysis["total"]
    )
    return {**analysis, "progress": progress}


def analysis_get(*, game: Game) -> dict[str, Any]:
    """The analysis of `game` as it stands (status `not_requested` until somebody asks)."""
    return _with_progress(_analysis_of(game).get(game=game))


def analysis_request(*, game: Game, user: Any) -> dict[str, Any]:
    """Ask for the analysis of `game` (seats prefetched) as `user`, one of its players or staff:
    its kind's app queues the work, once; answers as `analysis_get` does."""
    analysis = _analysis_of(game)
    if not analysis_may_request(game=game, user=user):
        raise GamePermissionDenied(
            "not_a_player", "Only the game's players may ask for its analysis."
        )
    return _with_progress(analysis.request(game=game, user=user))


def analysis_may_request(*, game: Game, user: Any) -> bool:
    """Whether `user` may ask for the analysis of `game` (seats prefetched): a player or staff."""
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or seat_index_for(game=game, viewer=user) is not None


def kinds_with_records() -> list[registry.GameKind]:
    """The kinds whose games can be written as a record and imported from one (Circles)."""
    return [
        game_kind
        for game_kind in registry.all_kinds()
        if isinstance(game_kind.rules, RecordNotation)
    ]
