"""The unread badge in the navigation of every page, the count in the tab title, and a game page
reading its game's notifications."""

from __future__ import annotations

import re

import pytest

from greycircle.games.services import SeatSpec, game_create
from greycircle.notifications.models import Notification, NotificationKind
from tests.notifications.conftest import notify

pytestmark = pytest.mark.django_db

BADGE = re.compile(
    r'<span class="badge badge--unread" id="unread-badge" data-count="(\d+)"( hidden)?>'
    r'<span id="unread-count">(\d+)</span>'
)
SCRIPT = re.compile(r'<script type="module" src="[^"]*frontend/js/notifications\.[0-9a-f.]*js">')


def badge(html: str) -> tuple[int, bool]:
    """The count on the badge and whether it shows."""
    match = BADGE.search(html)
    assert match is not None, "no unread badge"
    assert match.group(1) == match.group(3)
    return int(match.group(1)), match.group(2) is None


def title(html: str) -> str:
    return re.search(r"<title>(.*?)</title>", html, re.S).group(1)


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/play/",
        "/games/",
        "/watch/",
        "/friends/",
        "/notifications/",
        "/settings/",
        "/accounts/email/",
        "/accounts/password/change/",
        "/leaderboard/circles/",
        "/rules/circles/",
    ],
)
def test_every_page_shows_the_badge_and_the_count_in_its_title(client, alice, path):
    notify(alice, NotificationKind.REMINDER)
    notify(alice, NotificationKind.GAME_OVER)
    client.force_login(alice)

    response = client.get(path)

    assert response.status_code == 200, path
    html = response.content.decode()
    assert badge(html) == (2, True)
    assert title(html).startswith("(2) ")
    assert SCRIPT.search(html)


def test_no_unread_hides_the_badge(client, alice):
    notify(alice, NotificationKind.REMINDER).__class__.objects.update(read=True)
    client.force_login(alice)
    html = client.get("/").content.decode()
    assert badge(html) == (0, False)
    assert not title(html).startswith("(")


def test_visitors_get_no_badge_and_no_stream(client):
    html = client.get("/").content.decode()
    assert 'id="unread-badge"' not in html
    assert not SCRIPT.search(html)


def test_the_badge_costs_one_query(client, alice):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(alice)
    with CaptureQueriesContext(connection) as counted:
        client.get("/about/")
    inbox = [q["sql"] for q in counted.captured_queries if "notifications_notification" in q["sql"]]
    assert len(inbox) == 1, inbox


def test_opening_a_game_reads_its_notifications_only(client, alice, tictactoe):
    game = game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])
    about_game = notify(alice, NotificationKind.REMINDER, game=game)
    other = notify(alice, NotificationKind.FRIEND_REQUEST)
    client.force_login(alice)

    html = client.get(f"/games/{game.pk}/").content.decode()

    assert Notification.objects.get(pk=about_game.pk).read
    assert not Notification.objects.get(pk=other.pk).read
    assert badge(html) == (1, True)  # counted after reading this game's
    assert title(html).startswith("(1) ")
