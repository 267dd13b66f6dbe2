"""Filing reports: a player's (`report_file`) and the automatic signals' (`report_file_automatic`).

A player reports what they could see, and only that: a message they could read (its author is
reported), a game they could see (naming which of its players), a player's profile. A target that
does not exist and one the reporter may not see get the same answer (`not_found`), so a report
never tells whether a hidden game or a player across a block exists. Nobody reports themselves.
One open report per reporter and target (`duplicate`), and `THROTTLE_REPORT_FILE` filed a day (the
API's rate limits, scope `report_file`: `429` with `retry_after`). Guests may report the messages
they read (which is where a stranger's abuse reaches them), nothing else: a guest account costs
nothing to make.

Staff may be reported like anyone: refusing them would tell who is staff.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from accounts.selectors import username_key
from greycircle.api.throttling import rate_limits_spend
from greycircle.chat.models import GameMessage
from greycircle.chat.selectors import game_room_readable
from greycircle.conversations.models import DirectMessage
from greycircle.conversations.selectors import visible_to
from greycircle.games import selectors as game_selectors
from greycircle.profiles.selectors import profile_blocked_by, profile_user_for
from greycircle.reports.errors import ReportInvalid, ReportNotFound, ReportThrottled
from greycircle.reports.models import (
    COMMENT_MAX,
    Report,
    ReportReason,
    ReportSource,
    ReportStatus,
)

if TYPE_CHECKING:
    from greycircle.games.models import Game

THROTTLE_SCOPE = "report_file"
# The target of the signal report about many reports against one player.
BURST_TARGET = "reports"
NOT_FOUND = "Nothing to report there: no such player, game or message, or not one you can see."


@dataclass(frozen=True)
class Target:
    """What a report points at: the reported `user`, and the `key` naming the thing of theirs
    (`Report.target`), with the row it names."""

    user: User
    key: str = ""
    game: Game | None = None
    game_message: GameMessage | None = None
    direct_message: DirectMessage | None = None


def report_file(
    *,
    reporter: User,
    reason: str,
    comment: str = "",
    username: str | None = None,
    game_id: int | None = None,
    game_message_id: int | None = None,
    direct_message_id: int | None = None,
    now: datetime | None = None,
) -> Report:
    """File `reporter`'s report of `reason` about exactly one target: a message in a game's chat
    (`game_message_id`) or between friends (`direct_message_id`), whose author is reported; a
    game (`game_id`: the player named by `username` among its seats, or the one other person in
    it); or else a player's profile (`username`). Refusals change nothing (see the module
    docstring)."""
    now = now or timezone.now()
    reason = _reason_clean(reason)
    comment = (comment or "").strip()
    if len(comment) > COMMENT_MAX:
        raise ReportInvalid("comment_too_long", f"A comment has at most {COMMENT_MAX} characters.")
    if not reporter.is_authenticated or not reporter.is_active:
        raise ReportInvalid("closed_account", "Only a signed-in player may report.")
    named = [key for key in (game_id, game_message_id, direct_message_id) if key is not None]
    if len(named) > 1 or (username and (game_message_id or direct_message_id)):
        raise ReportInvalid(
            "one_target", "Report one thing at a time: a message, a game or a player."
        )
    if game_message_id is not None:
        target = _game_message_target(reporter=reporter, message_id=game_message_id)
    elif direct_message_id is not None:
        target = _direct_message_target(reporter=reporter, message_id=direct_message_id)
    elif game_id is not None:
        target = _game_target(reporter=reporter, game_id=game_id, username=username)
    elif username:
        target = _profile_target(reporter=reporter, username=username)
    else:
        raise ReportInvalid("no_target", "Say what you report: a player, a game or a message.")
    if target.user.pk == reporter.pk:
        raise ReportInvalid("self", "You cannot report yourself.")
    if _open_report_of(reporter=reporter, target=target):
        raise _duplicate()
    retry_after = rate_limits_spend(user=reporter, scope=THROTTLE_SCOPE)
    if retry_after is not None:
        raise ReportThrottled(
            "throttled",
            f"Too many reports today: wait {retry_after} s.",
            retry_after=retry_after,
        )
    try:
        with transaction.atomic():
            report = Report.objects.create(
                reporter=reporter,
                source=ReportSource.PLAYER,
                user=target.user,
                reason=reason,
                comment=comment,
                game=target.game,
                game_message=target.game_message,
                direct_message=target.direct_message,
                target=target.key,
                created=now,
            )
    except IntegrityError:
        # The same report sent twice at once: the unique constraint let one through.
        raise _duplicate() from None
    _burst_check(user=target.user, now=now)
    return report


def report_file_automatic(
    *,
    user: User,
    reason: str,
    source: str,
    comment: str,
    target: str = "",
    game: Game | None = None,
    game_message: GameMessage | None = None,
    direct_message: DirectMessage | None = None,
    now: datetime | None = None,
) -> Report | None:
    """File a report of `reason` about `user` from an automatic `source` (`screening` or
    `signal`), pointing at a message, or else at `target` (`Report.target`: the pattern, e.g.
    "stalling") and `game`; None if one of the same kind is open already for that user and
    target (the pattern going on needs no second report)."""
    source = ReportSource(source)
    if source == ReportSource.PLAYER:
        raise ValueError("Automatic reports come from the screening or a signal.")
    if game_message is not None:
        target, game = f"game_message:{game_message.pk}", game_message.game
    elif direct_message is not None:
        target = f"direct_message:{direct_message.pk}"
    fields = {"user": user, "reason": ReportReason(reason), "source": source, "target": target}
    if Report.objects.filter(**fields, status=ReportStatus.OPEN).exists():
        return None
    try:
        with transaction.atomic():
            return Report.objects.create(
                **fields,
                comment=comment[:COMMENT_MAX],
                game=game,
                game_message=game_message,
                direct_message=direct_message,
                created=now or timezone.now(),
            )
    except IntegrityError:
        return None  # filed meanwhile by another process


def _reason_clean(reason: str) -> str:
    if reason not in ReportReason.values:
        raise ReportInvalid(
            "unknown_reason", f"Give one of the reasons: {', '.join(ReportReason.values)}."
        )
    return reason


def _duplicate() -> ReportInvalid:
    return ReportInvalid(
        "duplicate", "You have reported this already; the moderators will look at it."
    )


def _open_report_of(*, reporter: User, target: Target) -> bool:
    return Report.objects.filter(
        reporter=reporter,
        source=ReportSource.PLAYER,
        user=target.user,
        target=target.key,
        status=ReportStatus.OPEN,
    ).exists()


def _not_guest(reporter: User) -> None:
    if reporter.is_guest:
        raise ReportInvalid(
            "guest",
            "Guests may report messages only. Create an account to report a player or a game.",
        )


def _profile_target(*, reporter: User, username: str) -> Target:
    """The player called `username`, whose profile `reporter` can see (or has blocked: blocking
    someone is no reason not to report them)."""
    _not_guest(reporter)
    user = profile_user_for(username=username, viewer=reporter) or profile_blocked_by(
        username=username, viewer=reporter
    )
    if user is None:
        raise ReportNotFound("not_found", NOT_FOUND)
    return Target(user=user)


def _game_message_target(*, reporter: User, message_id: int) -> Target:
    """The author of chat message `message_id`, in a room of its game `reporter` may read, and
    not hidden from them (a flagged message is reported by the screening already). A block
    since does not matter: blocking someone is no reason not to report what they said."""
    message = GameMessage.objects.select_related("author", "game").filter(pk=message_id).first()
    if message is None or (message.hidden and message.author_id != reporter.pk):
        raise ReportNotFound("not_found", NOT_FOUND)
    game = game_selectors.game_get(game_id=message.game_id)
    if game is None or not game_room_readable(viewer=reporter, game=game, room=message.room):
        raise ReportNotFound("not_found", NOT_FOUND)
    return Target(
        user=message.author, key=f"game_message:{message.pk}", game=game, game_message=message
    )


def _direct_message_target(*, reporter: User, message_id: int) -> Target:
    """The sender of message `message_id` in a conversation of `reporter`'s, which they see."""
    message = (
        DirectMessage.objects.filter(visible_to(reporter), pk=message_id)
        .filter(Q(conversation__user_low=reporter) | Q(conversation__user_high=reporter))
        .select_related("sender")
        .first()
    )
    if message is None:
        raise ReportNotFound("not_found", NOT_FOUND)
    return Target(user=message.sender, key=f"direct_message:{message.pk}", direct_message=message)


def _game_target(*, reporter: User, game_id: int, username: str | None) -> Target:
    """A player of game `game_id`, which `reporter` can see: the one called `username`, or with
    no name the one other person at the table."""
    _not_guest(reporter)
    game = game_selectors.game_get(game_id=game_id)
    if game is None or not game_selectors.game_visible_to(game=game, viewer=reporter):
        raise ReportNotFound("not_found", NOT_FOUND)
    players = {
        seat.user.pk: seat.user
        for seat in game.seats.all()
        if seat.user is not None and seat.user.is_active
    }
    if username:
        wanted = username_key(username)
        named = [user for user in players.values() if username_key(user.username) == wanted]
        if not named:
            raise ReportNotFound("not_found", NOT_FOUND)
        user = named[0]
    else:
        others = [user for pk, user in players.items() if pk != reporter.pk]
        if len(others) != 1:
            raise ReportInvalid("username_required", "Name the player of this game you report.")
        user = others[0]
    return Target(user=user, key=f"game:{game.pk}", game=game)


def _burst_check(*, user: User, now: datetime) -> None:
    """A signal report when `REPORTS_BURST_COUNT` registered players have reported `user` within
    `REPORTS_BURST_HOURS` (guests do not count: anyone can make many)."""
    since = signal_window_start(
        user=user, target=BURST_TARGET, hours=settings.REPORTS_BURST_HOURS, now=now
    )
    recent = Report.objects.filter(
        user=user, source=ReportSource.PLAYER, created__gt=since, reporter__is_guest=False
    )
    reporters = recent.values("reporter").distinct().count()
    if reporters < settings.REPORTS_BURST_COUNT:
        return
    reasons = Counter(recent.order_by("created").values_list("reason", flat=True))
    said = ", ".join(
        f"{ReportReason(reason).label.lower()}: {n}" for reason, n in reasons.most_common()
    )
    report_file_automatic(
        user=user,
        reason=ReportReason.OTHER,
        source=ReportSource.SIGNAL,
        target=BURST_TARGET,
        comment=f"{reporters} players reported {user.username} within "
        f"{settings.REPORTS_BURST_HOURS:g} h ({said}).",
        now=now,
    )


def signal_window_start(*, user: User, target: str, hours: float, now: datetime) -> datetime:
    """Where a signal's window of `hours` before `now` starts: at the signal's last report about
    `user` if that is later, so that what one report counted never sets off the next."""
    since = now - timedelta(hours=hours)
    last = (
        Report.objects.filter(user=user, source=ReportSource.SIGNAL, target=target)
        .order_by("-created")
        .values_list("created", flat=True)
        .first()
    )
    return max(since, last) if last is not None else since
