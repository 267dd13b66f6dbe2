"""The inbox page (/notifications/): my notifications with their links, reading them."""

from __future__ import annotations

import pytest

from greycircle.notifications.models import Notification, NotificationKind
from greycircle.notifications.views import INBOX_PAGE_SIZE
from tests.notifications.conftest import notify

pytestmark = pytest.mark.django_db


def test_the_inbox_lists_my_notifications_with_links(client, alice, bob):
    mine = notify(alice, NotificationKind.FRIEND_REQUEST, text="bob <wants> to be your friend")
    notify(bob, NotificationKind.FRIEND_REQUEST, text="for bob only")
    client.force_login(alice)

    response = client.get("/notifications/")

    html = response.content.decode()
    assert response.status_code == 200
    assert f'data-notification-id="{mine.pk}"' in html
    assert '<a href="/friends/">bob &lt;wants&gt; to be your friend</a>' in html
    assert "inbox__item--unread" in html
    assert "for bob only" not in html
    assert f'action="/notifications/{mine.pk}/read/"' in html


def test_an_empty_inbox_says_so(client, alice):
    client.force_login(alice)
    html = client.get("/notifications/").content.decode()
    assert 'id="inbox-empty">' in html  # shown, not hidden


def test_the_inbox_is_paged(client, alice):
    for number in range(INBOX_PAGE_SIZE + 1):
        notify(alice, NotificationKind.FRIEND_REQUEST, text=f"request {number}")
    client.force_login(alice)
    first = client.get("/notifications/").content.decode()
    second = client.get("/notifications/?page=2").content.decode()
    assert f"request {INBOX_PAGE_SIZE}<" in first
    assert "request 0<" in second
    assert "request 0<" not in first


def test_marking_read_from_the_page(client, alice, bob):
    one = notify(alice, NotificationKind.FRIEND_REQUEST)
    notify(alice, NotificationKind.FRIEND_ACCEPTED)
    theirs = notify(bob, NotificationKind.FRIEND_REQUEST)
    client.force_login(alice)

    assert client.post(f"/notifications/{one.pk}/read/").url == "/notifications/"
    assert Notification.objects.filter(recipient=alice, read=False).count() == 1

    response = client.post(f"/notifications/{theirs.pk}/read/", follow=True)
    assert "No such notification." in response.content.decode()
    assert not Notification.objects.get(pk=theirs.pk).read

    client.post("/notifications/read-all/")
    assert not Notification.objects.filter(recipient=alice, read=False).exists()
    assert not Notification.objects.get(pk=theirs.pk).read


def test_the_inbox_needs_a_login_and_reading_needs_post(client, alice):
    assert client.get("/notifications/").status_code == 302
    client.force_login(alice)
    assert client.get("/notifications/read-all/").status_code == 405
