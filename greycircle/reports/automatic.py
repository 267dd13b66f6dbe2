"""The automatic signals, filed as reports (`services.report_file_automatic`), each a receiver
connected in the app's `ready()`:

- a message the chat's screening flagged (`greycircle.chat.signals.message_flagged`): an
  `abusive_chat` report from the `screening`, pointing at the message;
- rating farming (`greycircle.moderation.flags.flag_raised`, for the patterns the ratings app
  flags): a `sandbagging` signal report about the gaining account, one per open flag;
- stalling (`greycircle.games.signals.game_changed`, a live game ended on time): a player who
  lost `REPORTS_STALLING_COUNT` live games on time within `REPORTS_STALLING_HOURS`, in each of
  which they had moved, gets a `stalling` signal report;
- many reports against one player (`services._burst_check`, run as a player files one).

Each runs after the change that set it off has committed, in a transaction of its own: a report
that cannot be filed never undoes a move or a game's end, nor fails the request that made it
(`robust`: the error is logged).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from greycircle.chat.models import GameMessage
from greycircle.conversations.models import DirectMessage
from greycircle.games.flags import lost_on_time
from greycircle.games.models import Game, GameStatus, Move
from greycircle.games.signals import GameFacts
from greycircle.reports.models import ReportReason, ReportSource
from greycircle.reports.services import report_file_automatic, signal_window_start

STALLING_TARGET = "stalling"


def message_flagged_received(sender: Any, *, message: Any, reason: str, **kwargs: Any) -> None:
    """An `abusive_chat` report from the screening about the author of the flagged `message`
    (in a game's chat or between friends)."""
    comment = f"The screening flagged the message ({reason})."
    fields = {
        "reason": ReportReason.ABUSIVE_CHAT,
        "source": ReportSource.SCREENING,
        "comment": comment,
    }
    if isinstance(message, GameMessage):
        report_file_automatic(user=message.author, game_message=message, **fields)
    elif isinstance(message, DirectMessage):
        report_file_automatic(user=message.sender, direct_message=message, **fields)


def flag_raised_received(sender: Any, *, flag: Any, **kwargs: Any) -> None:
    """A `sandbagging` signal report about the account the raised (or grown) `flag` favours,
    once per open flag: its description says what was seen."""
    if flag.user_id is None:
        return
    report_file_automatic(
        user=User.objects.get(pk=flag.user_id),
        reason=ReportReason.SANDBAGGING,
        source=ReportSource.SIGNAL,
        comment=flag.description,
        target=f"flag:{flag.pk}",
        game=Game.objects.filter(pk=flag.game_id).first(),
    )


def game_changed_received(sender: Any, *, game: GameFacts, ended: bool, **kwargs: Any) -> None:
    """On a live game lost on time, look at its losers' stalling once the game's end commits.
    (Sent for every move, inside its transaction: anything else returns at once.)"""
    outcome = game["outcome"] or {}
    if not (ended and game["live"] and outcome.get("reason") == "timeout"):
        return
    winners = outcome.get("winners") or []
    losers = [
        seat["user_id"]
        for seat in game["seats"]
        if seat["user_id"] is not None and seat["index"] not in winners
    ]
    if losers:
        transaction.on_commit(lambda: stalling_check(user_ids=losers), robust=True)


def stalling_check(*, user_ids: list[int], now: datetime | None = None) -> None:
    """A `stalling` report about each of `user_ids` who lost `REPORTS_STALLING_COUNT` live
    games on time within `REPORTS_STALLING_HOURS` (since their last such report), in each of
    which they had made a move: letting the clock run out rather than resigning."""
    now = now or timezone.now()
    for user in User.objects.filter(pk__in=user_ids):
        since = signal_window_start(
            user=user, target=STALLING_TARGET, hours=settings.REPORTS_STALLING_HOURS, now=now
        )
        games = [
            game
            for game in Game.objects.filter(
                seats__user=user,
                status=GameStatus.FINISHED,
                clock_initial_ms__isnull=False,
                finished_at__gt=since,
                outcome__reason="timeout",
            )
            .distinct()
            .prefetch_related("seats")
            .order_by("finished_at")
            if _lost_on_time_after_moving(game, user)
        ]
        if len(games) < settings.REPORTS_STALLING_COUNT:
            continue
        report_file_automatic(
            user=user,
            reason=ReportReason.STALLING,
            source=ReportSource.SIGNAL,
            comment=f"{user.username} lost {len(games)} live games on time within "
            f"{settings.REPORTS_STALLING_HOURS:g} h after moving in them: "
            f"{', '.join(f'#{game.pk}' for game in games)}.",
            target=STALLING_TARGET,
            game=games[-1],
            now=now,
        )


def _lost_on_time_after_moving(game: Game, user: User) -> bool:
    seats = [seat.index for seat in game.seats.all() if seat.user_id == user.pk]
    return any(
        lost_on_time(game, seat=seat) and Move.objects.filter(game=game, seat=seat).exists()
        for seat in seats
    )
