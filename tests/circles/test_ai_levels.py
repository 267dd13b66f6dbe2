"""Circles' computer levels, `expert` among them, wherever a player picks or meets one: the Play
form, the API's `ai_level`, and the profile's statistics by level."""

from __future__ import annotations

import pytest

from frontend.forms import NewGameForm
from greycircle.games import registry, services
from greycircle.games.services import SeatSpec
from greycircle.profiles import selectors
from tests.factories import game_started

pytestmark = pytest.mark.django_db

LEVELS = ["easy", "medium", "hard", "expert"]


def test_the_play_form_offers_every_level():
    form = NewGameForm(game_kind=registry.get("circles"), prefix="circles")

    offered = [value for value, _ in form.fields["seat_1"].choices if value.startswith("ai:")]
    assert offered == [f"ai:{level}" for level in LEVELS]
    assert ("ai:expert", "Computer (expert)") in form.fields["seat_1"].choices


def test_the_api_seats_an_expert_computer(alice, client_for):
    # The schema's enum is the registered levels (tests/api/test_schema.py checks every kind).
    assert registry.get("circles").ai_levels == tuple(LEVELS)
    response = client_for(alice).post(
        "/api/v1/games/", {"kind": "circles", "seats": [{"ai_level": "expert"}]}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert [seat["ai_level"] for seat in response.json()["seats"]] == [None, "expert"]


def test_the_profile_counts_games_against_expert_by_level(alice):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(ai_level="expert")])
    services.game_resign(game_id=game.pk, user=alice)

    [circles] = selectors.profile_statistics(user=alice, viewer=alice)
    assert [(row["level"], row["lost"]) for row in circles["against_computer"]] == [("expert", 1)]
