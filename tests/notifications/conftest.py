"""Helpers for the notification tests: verified addresses, games between people, notifications."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django_tasks_db.models import DBTaskResult

from greycircle.games.models import Seat
from greycircle.games.services import SeatSpec
from greycircle.notifications.models import Notification, NotificationKind
from tests.factories import game_started


def verify(*users) -> None:
    """Give each user a verified primary address (their `email`)."""
    for user in users:
        EmailAddress.objects.update_or_create(
            user=user, email=user.email, defaults={"primary": True, "verified": True}
        )


def notify(recipient, kind: str, *, game=None, text: str | None = None, link: str | None = None):
    """A notification as the notification services would keep it."""
    return Notification.objects.create(
        recipient=recipient,
        kind=kind,
        text=text or f"{NotificationKind(kind).label} for {recipient.username}",
        link=link if link is not None else (f"/games/{game.pk}/" if game else "/friends/"),
        game=game,
    )


def to_move(game):
    """The user whose turn it is in `game`."""
    return Seat.objects.select_related("user").get(game=game, index=game.to_move).user


@pytest.fixture
def people_game(tictactoe, alice, bob, deliver_notifications):
    """A tic-tac-toe game between alice and bob in play (nothing queued, nobody verified yet)."""
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    deliver_notifications()  # its start's notifications are kept, as the worker would
    DBTaskResult.objects.all().delete()  # whatever else starting the game queued is not under test
    return game


@pytest.fixture
def online():
    """Mark a user as online: they have a live socket (greycircle.presence)."""
    from django.core.cache import cache

    def mark(user) -> None:
        cache.set(f"presence:{user.pk}", 1, timeout=None)

    return mark
