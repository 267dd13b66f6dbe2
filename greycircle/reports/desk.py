"""What the moderation desk reads: the queue of open reports grouped by the reported player, and
a player's case — each open report with its evidence at hand.

Selectors only (no writes: greycircle.reports.resolution acts). Games are read without their
state or seed (every hand, the stock's order, the deal), so nothing hidden reaches a staff page:
the desk links to the games admin's own pages, which show a game as spectators see it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, Max, Min, OuterRef, QuerySet
from django.utils import timezone

from greycircle.chat.models import GameMessage
from greycircle.conversations.models import DirectMessage
from greycircle.games.models import Game, GameStatus, Move, Seat
from greycircle.moderation import sanctions
from greycircle.moderation.models import Sanction
from greycircle.ratings.models import PlayerRating, RatingChange
from greycircle.ratings.suspicion import QUICK_LOSS_MOVES
from greycircle.reports.models import Report, ReportReason, ReportSource, ReportStatus

QUEUE_SHOWN = 100  # players on one page of the queue, oldest report first
HISTORY_SHOWN = 50  # earlier (handled) reports on a case page
CONTEXT_MESSAGES = 3  # messages shown before and after a reported one
RATING_CHANGES_SHOWN = 30
GAMES_LOOKED_AT = 500  # a player's latest games summed up by opponent
OPPONENTS_SHOWN = 20

ASSIGNED_FILTERS = {"unassigned": "Nobody's", "mine": "Mine"}


@dataclass(frozen=True)
class QueueEntry:
    """One reported player in the queue: their open reports, counted."""

    user: Any
    count: int
    oldest: datetime
    newest: datetime
    reasons: list[tuple[str, int]]  # (label, open reports with that reason), most first
    sources: list[tuple[str, int]]
    assigned_to: list[str]  # usernames of the staff holding any of them


def report_queue(
    *,
    viewer: Any,
    assigned: str = "",
    reason: str = "",
    source: str = "",
    limit: int = QUEUE_SHOWN,
) -> list[QueueEntry]:
    """The players with open reports, the longest waiting first, each with every open report of
    theirs counted (by reason and source) and who holds them.

    The filters choose players, not reports: `assigned` "unassigned" (no open report of theirs
    is held by anyone) or "mine" (one is held by `viewer`); `reason`/`source`: one of their open
    reports has it. Unknown filter values are ignored.
    """
    open_reports = Report.objects.filter(status=ReportStatus.OPEN)
    players = open_reports
    if assigned == "unassigned":
        held = open_reports.filter(user_id=OuterRef("user_id"), assigned_to__isnull=False)
        players = players.exclude(Exists(held))
    elif assigned == "mine":
        players = players.filter(
            Exists(open_reports.filter(user_id=OuterRef("user_id"), assigned_to=viewer))
        )
    if reason in ReportReason.values:
        players = players.filter(
            Exists(open_reports.filter(user_id=OuterRef("user_id"), reason=reason))
        )
    if source in ReportSource.values:
        players = players.filter(
            Exists(open_reports.filter(user_id=OuterRef("user_id"), source=source))
        )
    groups = list(
        players.values("user_id")
        .annotate(count=Count("pk"), oldest=Min("created"), newest=Max("created"))
        .order_by("oldest", "user_id")[:limit]
    )
    user_ids = [group["user_id"] for group in groups]
    users = get_user_model().objects.in_bulk(user_ids)
    mine = open_reports.filter(user_id__in=user_ids)
    reasons: dict[int, Counter[str]] = defaultdict(Counter)
    sources: dict[int, Counter[str]] = defaultdict(Counter)
    holders: dict[int, set[str]] = defaultdict(set)
    for user_id, report_reason, report_source, holder in mine.values_list(
        "user_id", "reason", "source", "assigned_to__username"
    ):
        reasons[user_id][report_reason] += 1
        sources[user_id][report_source] += 1
        if holder:
            holders[user_id].add(holder)
    reason_labels = dict(ReportReason.choices)
    source_labels = dict(ReportSource.choices)
    return [
        QueueEntry(
            user=users[group["user_id"]],
            count=group["count"],
            oldest=group["oldest"],
            newest=group["newest"],
            reasons=[
                (str(reason_labels.get(key, key)), n)
                for key, n in reasons[group["user_id"]].most_common()
            ],
            sources=[
                (str(source_labels.get(key, key)), n)
                for key, n in sources[group["user_id"]].most_common()
            ],
            assigned_to=sorted(holders[group["user_id"]]),
        )
        for group in groups
    ]


@dataclass
class Opponent:
    """The player's games against one account, summed up: farming with spare accounts shows as
    many rated games against one account, one side losing quickly."""

    user: Any
    games: int = 0
    rated: int = 0
    won: int = 0  # by the player whose case it is
    lost: int = 0
    tied: int = 0  # finished with no single winner between the two
    quick_wins: int = 0  # won, the opponent having made fewer than QUICK_LOSS_MOVES moves
    quick_losses: int = 0  # lost, having made fewer than QUICK_LOSS_MOVES moves
    last: datetime | None = None


def player_opponents(
    *, user_id: int, games: int = GAMES_LOOKED_AT, limit: int = OPPONENTS_SHOWN
) -> list[Opponent]:
    """The people `user_id` played in their latest `games` games, most games first; games with
    computers only are left out. Four queries, whatever the number of games."""
    latest = list(
        Game.objects.filter(seats__user_id=user_id)
        .order_by("-updated_at", "-pk")
        .values_list("pk", "status", "rated", "outcome", "updated_at")[:games]
    )
    if not latest:
        return []
    game_ids = [row[0] for row in latest]
    seats: dict[int, dict[int, int]] = defaultdict(dict)  # game -> user -> seat index
    for game_id, index, seated in Seat.objects.filter(
        game_id__in=game_ids, user__isnull=False, ai_level=""
    ).values_list("game_id", "index", "user_id"):
        seats[game_id][seated] = index
    moves: dict[tuple[int, int], int] = {
        (game_id, player_id): count
        for game_id, player_id, count in Move.objects.filter(
            game_id__in=game_ids, imported=False, player__isnull=False
        )
        .values_list("game_id", "player_id")
        .annotate(count=Count("pk"))
        .order_by()
    }
    against: dict[int, Opponent] = {}
    for game_id, status, rated, outcome, updated in latest:
        table = seats.get(game_id, {})
        mine = table.get(user_id)
        for other_id, other_index in table.items():
            if other_id == user_id:
                continue
            opponent = against.setdefault(other_id, Opponent(user=other_id))
            opponent.games += 1
            opponent.rated += bool(rated)
            opponent.last = max(filter(None, [opponent.last, updated]))
            if status != GameStatus.FINISHED:
                continue
            winners = set((outcome or {}).get("winners") or [])
            if mine in winners and other_index not in winners:
                opponent.won += 1
                opponent.quick_wins += moves.get((game_id, other_id), 0) < QUICK_LOSS_MOVES
            elif other_index in winners and mine not in winners:
                opponent.lost += 1
                opponent.quick_losses += moves.get((game_id, user_id), 0) < QUICK_LOSS_MOVES
            else:
                opponent.tied += 1
    ranked = sorted(against.values(), key=lambda o: (-o.games, -o.last.timestamp()))[:limit]
    users = get_user_model().objects.in_bulk([opponent.user for opponent in ranked])
    for opponent in ranked:
        opponent.user = users[opponent.user]
    return ranked


def rating_history(*, user_id: int, limit: int = RATING_CHANGES_SHOWN) -> dict[str, Any]:
    """The player's ratings now (per kind and speed) and their latest rated games' changes."""
    return {
        "ratings": list(PlayerRating.objects.filter(user_id=user_id).order_by("kind", "speed")),
        "changes": list(
            RatingChange.objects.filter(user_id=user_id).order_by("-created_at", "-pk")[:limit]
        ),
    }


def _reports(*, user_id: int) -> QuerySet[Report]:
    # The game's number, kind and status are shown; its state and seed are never even read.
    return (
        Report.objects.filter(user_id=user_id)
        .select_related("reporter", "assigned_to", "handled_by", "moderation_action", "game")
        .defer("game__state", "game__seed")
    )


def case_open_reports(*, user_id: int) -> list[Report]:
    """The player's open reports, oldest first, each with what it points at; a reported
    message's with its context (`report.context`: `message_context`)."""
    reports = list(
        _reports(user_id=user_id).filter(status=ReportStatus.OPEN).order_by("created", "pk")
    )
    for report in reports:
        report.context = message_context(report=report)
    return reports


@dataclass(frozen=True)
class ContextLine:
    """One message around a reported one, as staff see it: hidden ones too, marked."""

    pk: int
    author: str
    body: str
    created: datetime
    hidden: bool  # shadow-hidden (flagged): nobody but its author and staff sees it
    reviewed: bool
    reported: bool  # the message the report is about


@dataclass(frozen=True)
class MessageContext:
    where: str  # "the players' chat of game #12", "a conversation between alice and bob"
    game_id: int | None
    lines: list[ContextLine]


def message_context(*, report: Report, around: int = CONTEXT_MESSAGES) -> MessageContext | None:
    """The reported message with the `around` messages before and after it in the same game
    room or conversation, hidden ones included; None when the report is about no message (or
    the message is gone)."""
    game_id = None
    if report.game_message_id is not None:
        message = GameMessage.objects.filter(pk=report.game_message_id).first()
        if message is None:
            return None
        thread = GameMessage.objects.filter(game_id=message.game_id, room=message.room)
        author, game_id = "author", message.game_id
        where = f"the {message.get_room_display().lower()} chat of game #{game_id}"
    elif report.direct_message_id is not None:
        message = (
            DirectMessage.objects.filter(pk=report.direct_message_id)
            .select_related("conversation__user_low", "conversation__user_high")
            .first()
        )
        if message is None:
            return None
        thread = DirectMessage.objects.filter(conversation_id=message.conversation_id)
        pair = message.conversation
        author = "sender"
        where = f"the conversation between {pair.user_low.username} and {pair.user_high.username}"
    else:
        return None
    thread = thread.select_related(author)
    before = list(thread.filter(pk__lt=message.pk).order_by("-pk")[:around])[::-1]
    after = list(thread.filter(pk__gt=message.pk).order_by("pk")[:around])
    lines = [
        ContextLine(
            pk=line.pk,
            author=getattr(line, author).username,
            body=line.body,
            created=line.created,
            hidden=line.hidden,
            reviewed=line.reviewed_at is not None,
            reported=line.pk == message.pk,
        )
        for line in [*before, message, *after]
    ]
    return MessageContext(where=where, game_id=game_id, lines=lines)


def case_earlier_reports(*, user_id: int, limit: int = HISTORY_SHOWN) -> list[Report]:
    """The player's handled reports, newest first: who handled them, how, and the log entry."""
    return list(
        _reports(user_id=user_id)
        .filter(status=ReportStatus.HANDLED)
        .order_by("-handled_at", "-pk")[:limit]
    )


def case_games(*, reports: Sequence[Report]) -> list[Game]:
    """The games the reports point at, once each, with their seats (never their state)."""
    game_ids = sorted({report.game_id for report in reports if report.game_id is not None})
    return list(
        Game.objects.filter(pk__in=game_ids).defer("state", "seed").with_seats().order_by("pk")
    )


@dataclass(frozen=True)
class SanctionLine:
    sanction: Sanction
    active: bool  # in force now (a warning: until the player acknowledges it)
    liftable: bool  # not lifted, and not a mute or bar that has ended


def case_sanctions(*, user_id: int, now: datetime | None = None) -> list[SanctionLine]:
    """Every sanction of the player, newest first, marked whether it is in force now and
    whether it can still be lifted."""
    now = now or timezone.now()
    history = list(sanctions.sanctions_of(user_id=user_id).order_by("-created", "-pk"))
    if not history:
        return []
    active = set(
        sanctions.sanctions_active(user=history[0].user, now=now).values_list("pk", flat=True)
    )
    return [
        SanctionLine(
            sanction=s,
            active=s.pk in active,
            liftable=s.lifted_at is None and (s.until is None or s.until > now),
        )
        for s in history
    ]
