"""Who of my friends is online now, on the friends page and in the API; inviting one to a game."""

from __future__ import annotations

import re

import pytest

from accounts.models import Friendship
from greycircle.presence import presence_socket_closed, presence_socket_opened

pytestmark = pytest.mark.django_db


@pytest.fixture
def friends_of_alice(alice, bob, carol):
    for friend in (bob, carol):
        Friendship.objects.create(user=alice, friend=friend)
        Friendship.objects.create(user=friend, friend=alice)
    presence_socket_opened(user_id=bob.pk)
    return bob, carol


def entry(html: str, user) -> str:
    match = re.search(rf'data-user-id="{user.pk}">(.*?)</li>', html, re.S)
    assert match is not None
    return match.group(1)


def test_the_friends_page_shows_who_is_online_and_offers_a_game(client, alice, friends_of_alice):
    bob, carol = friends_of_alice
    client.force_login(alice)
    html = client.get("/friends/").content.decode()

    assert "online now" in entry(html, bob)
    assert "online now" not in entry(html, carol)
    assert 'href="/play/?invite=bob#start-a-game"' in entry(html, bob)

    presence_socket_closed(user_id=bob.pk)
    assert "online now" not in entry(client.get("/friends/").content.decode(), bob)


def test_the_friends_api_says_who_is_online(client_for, alice, friends_of_alice):
    body = client_for(alice).get("/api/v1/friends/").json()
    assert {(f["user"]["username"], f["online"]) for f in body["results"]} == {
        ("bob", True),
        ("carol", False),
    }


def test_the_play_page_seats_the_invited_friend(client, alice):
    client.force_login(alice)
    html = client.get("/play/?invite=bob").content.decode()

    assert "Choose a game to invite bob to" in html
    for kind in ("circles", "kingscorner", "cirkis"):
        seat = re.search(rf'<select name="{kind}-seat_1".*?</select>', html, re.S).group(0)
        assert re.search(r'<option value="user"[^>]*selected', seat), kind
        assert re.search(rf'name="{kind}-username_1" value="bob"', html), kind
