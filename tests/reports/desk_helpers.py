"""Reports made for the desk's tests (tests/reports/test_desk.py, test_resolution.py,
test_admin.py) straight in the database: filing them is tests/reports/test_services.py's."""

from datetime import timedelta

from django.utils import timezone

from greycircle.reports.models import Report, ReportReason, ReportSource

DESK = "/admin/reports/report/"
REASON = "Insults in game chat, reported by two players."


def case_url(user) -> str:
    return f"{DESK}player/{user.pk}/"


def report(user, *, reporter=None, reason=ReportReason.ABUSIVE_CHAT, ago_hours=0, **fields):
    """An open report about `user`, filed `ago_hours` ago; automatic when `reporter` is None."""
    source = ReportSource.PLAYER if reporter is not None else ReportSource.SIGNAL
    return Report.objects.create(
        user=user,
        reporter=reporter,
        source=fields.pop("source", source),
        reason=reason,
        created=timezone.now() - timedelta(hours=ago_hours),
        **fields,
    )


def chat_lines(game, author, other, count, *, room="players"):
    """`count` messages in `room` of `game`, `author` and `other` taking turns (straight in the
    database: the chat's own tests post them through its service)."""
    from greycircle.chat.models import GameMessage

    return [
        GameMessage.objects.create(
            game=game, room=room, author=(author, other)[n % 2], body=f"line {n}"
        )
        for n in range(count)
    ]


def conversation_lines(a, b, count):
    """`count` direct messages between `a` and `b`, taking turns."""
    from greycircle.conversations.models import Conversation, DirectMessage

    low, high = sorted([a, b], key=lambda user: user.pk)
    conversation = Conversation.objects.create(user_low=low, user_high=high)
    return [
        DirectMessage.objects.create(
            conversation=conversation, sender=(a, b)[n % 2], body=f"note {n}"
        )
        for n in range(count)
    ]
