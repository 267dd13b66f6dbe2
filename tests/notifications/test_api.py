"""`/api/v1/notifications/`: my inbox, newest first with the unread count; reading it."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from greycircle.notifications.models import Notification, NotificationKind
from tests.notifications.conftest import notify

pytestmark = pytest.mark.django_db

URL = "/api/v1/notifications/"


@pytest.fixture
def inbox(alice, bob, tictactoe):
    """Three notifications of alice's (the newest first) and one of bob's."""
    from greycircle.games.services import SeatSpec, game_create

    game = game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])
    first = notify(alice, NotificationKind.FRIEND_REQUEST, text="bob wants to be your friend")
    second = notify(alice, NotificationKind.YOUR_TURN, game=game, text="Your turn")
    third = notify(alice, NotificationKind.FRIEND_ACCEPTED, text="carol accepted")
    theirs = notify(bob, NotificationKind.FRIEND_REQUEST)
    return {"game": game, "mine": [third, second, first], "theirs": theirs}


def test_the_list_is_mine_newest_first_with_the_unread_count(client_for, alice, inbox):
    Notification.objects.filter(pk=inbox["mine"][2].pk).update(read=True)
    response = client_for(alice).get(URL)

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    assert body["unread_count"] == 2
    assert [entry["id"] for entry in body["results"]] == [n.pk for n in inbox["mine"]]
    assert body["results"][1] == {
        "id": inbox["mine"][1].pk,
        "kind": "your_turn",
        "text": "Your turn",
        "link": f"/games/{inbox['game'].pk}/",
        "game": inbox["game"].pk,
        "read": False,
        "created": body["results"][1]["created"],
    }


def test_the_list_pages_and_filters_unread(client_for, alice, inbox):
    Notification.objects.filter(pk=inbox["mine"][0].pk).update(read=True)
    client = client_for(alice)

    page = client.get(URL, {"page_size": 1, "page": 2}).json()
    assert [entry["id"] for entry in page["results"]] == [inbox["mine"][1].pk]
    assert page["unread_count"] == 2

    unread = client.get(URL, {"unread": "true"}).json()
    assert [entry["id"] for entry in unread["results"]] == [n.pk for n in inbox["mine"][1:]]
    assert client.get(URL, {"unread": "maybe"}).json()["code"] == "invalid"


def test_marking_one_read(client_for, alice, inbox):
    target = inbox["mine"][1]
    response = client_for(alice).post(f"{URL}{target.pk}/read/")

    assert response.status_code == 200
    assert response.json()["notification"]["read"] is True
    assert response.json()["notification"]["id"] == target.pk
    assert response.json()["unread_count"] == 2
    # Again: nothing changes.
    assert client_for(alice).post(f"{URL}{target.pk}/read/").json()["unread_count"] == 2


def test_marking_all_read_or_those_of_one_game(client_for, alice, bob, inbox):
    client = client_for(alice)
    response = client.post(f"{URL}read-all/", {"game": inbox["game"].pk}, format="json")
    assert response.json() == {"marked": 1, "unread_count": 2}

    response = client.post(f"{URL}read-all/")
    assert response.status_code == 200
    assert response.json() == {"marked": 2, "unread_count": 0}
    assert not Notification.objects.get(pk=inbox["theirs"].pk).read

    bad = client.post(f"{URL}read-all/", {"game": "x"}, format="json")
    assert bad.status_code == 400
    assert "game" in bad.json()["fields"]


def test_nobody_sees_or_reads_anothers_notifications(client_for, bob, inbox):
    client = client_for(bob)
    assert [entry["id"] for entry in client.get(URL).json()["results"]] == [inbox["theirs"].pk]

    for notification in inbox["mine"]:
        response = client.post(f"{URL}{notification.pk}/read/")
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"
    assert client.post(f"{URL}999999/read/").status_code == 404
    assert not Notification.objects.filter(recipient__username="alice", read=True).exists()


def test_the_inbox_needs_a_signed_in_user(inbox):
    client = APIClient()
    assert client.get(URL).status_code == 401
    assert client.post(f"{URL}read-all/").status_code == 401
    assert client.post(f"{URL}{inbox['theirs'].pk}/read/").status_code == 401
