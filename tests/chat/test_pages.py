"""The chat on the site's pages: the game page's panel, and the settings' switch."""

from __future__ import annotations

import pytest

from accounts.models import User
from greycircle.chat import services
from greycircle.games.services import SeatSpec, game_resign
from tests.factories import game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


def test_the_game_page_has_the_chat_panel_and_its_module(client, alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    client.force_login(alice)

    page = client.get(f"/games/{game.pk}/").content.decode()

    assert 'id="chat"' in page
    assert 'for="chat-input"' in page  # the field is labelled
    assert 'role="log"' in page  # new messages are announced
    assert '"greycircle/chat"' in page  # in the import map, for game-page.js to import


def test_the_settings_turn_chat_off_everywhere(client, alice):
    client.force_login(alice)
    assert 'name="chat_enabled"' in client.get("/settings/").content.decode()

    saved = client.post("/settings/", {"show_helpers": "on"})

    assert saved.status_code == 302
    assert User.objects.get(pk=alice.pk).chat_enabled is False
    client.post("/settings/", {"chat_enabled": "on"})
    assert User.objects.get(pk=alice.pk).chat_enabled is True


def test_apps_turn_it_off_in_me(client_for, alice):
    answer = client_for(alice).patch("/api/v1/me/", {"chat_enabled": False}, format="json")

    assert (answer.status_code, answer.json()["chat_enabled"]) == (200, False)
    assert User.objects.get(pk=alice.pk).chat_enabled is False


def test_the_replay_shows_each_room_to_those_who_could_read_it(client, alice, bob, carol):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    services.game_message_post(user=alice, game_id=game.pk, room="players", body="<b>gl</b>")
    services.game_message_post(
        user=carol, game_id=game.pk, room="spectators", body="see https://example.org"
    )
    game_resign(game_id=game.pk, user=bob)

    client.force_login(bob)
    page = client.get(f"/games/{game.pk}/replay/").content.decode()
    assert "Players&#x27; chat" in page
    assert "Spectators&#x27; chat" in page
    assert "&lt;b&gt;gl&lt;/b&gt;" in page
    assert "<b>gl</b>" not in page
    assert 'href="https://example.org"' not in page  # a stranger's link stays text

    client.force_login(carol)
    page = client.get(f"/games/{game.pk}/replay/").content.decode()
    assert "Players&#x27; chat" not in page
    assert "&lt;b&gt;gl" not in page
    assert 'href="https://example.org"' in page  # her own
