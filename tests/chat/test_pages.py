"""The chat on the site's pages: the game page's panel, and the settings' switch."""

from __future__ import annotations

import pytest

from accounts.models import User
from greycircle.games.services import SeatSpec
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
