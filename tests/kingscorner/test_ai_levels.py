"""King's Corner's computer levels, `hard` among them, wherever a player picks or meets one: the
Play form, the API's `ai_level`, and the profile's statistics by level."""

from __future__ import annotations

import pytest

from frontend.forms import NewGameForm
from greycircle.games import registry, services
from greycircle.games.services import SeatSpec
from greycircle.profiles import selectors
from tests.factories import game_started

pytestmark = pytest.mark.django_db

LEVELS = ["easy", "normal", "hard"]


def test_the_play_form_offers_every_level():
    form = NewGameForm(game_kind=registry.get("kingscorner"), prefix="kingscorner")

    offered = [value for value, _ in form.fields["seat_1"].choices if value.startswith("ai:")]
    assert offered == [f"ai:{level}" for level in LEVELS]
    assert ("ai:hard", "Computer (hard)") in form.fields["seat_1"].choices


def test_the_api_seats_a_hard_computer(alice, client_for):
    # The schema's enum is the registered levels (tests/api/test_schema.py checks every kind).
    assert registry.get("kingscorner").ai_levels == tuple(LEVELS)
    response = client_for(alice).post(
        "/api/v1/games/", {"kind": "kingscorner", "seats": [{"ai_level": "hard"}]}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert [seat["ai_level"] for seat in response.json()["seats"]] == [None, "hard"]


def test_the_profile_counts_games_against_hard_by_level(alice):
    game = game_started(creator=alice, kind="kingscorner", opponents=[SeatSpec(ai_level="hard")])
    services.game_resign(game_id=game.pk, user=alice)

    [kingscorner] = selectors.profile_statistics(user=alice, viewer=alice)
    assert [(row["level"], row["lost"]) for row in kingscorner["against_computer"]] == [("hard", 1)]
