"""The game page says, once a game is over, whether it was rated and why not."""

import pytest
from playwright.sync_api import expect

from greycircle.games import services
from greycircle.games.services import SeatSpec
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_game_over_too_soon_says_it_was_not_rated_and_a_rated_one_shows_the_rating(
    new_page, log_in
):
    kim = UserFactory(username="kim")
    lee = UserFactory(username="lee")
    short = game_started(creator=kim, kind="circles", opponents=[SeatSpec(user=lee)])
    services.game_resign(game_id=short.pk, user=lee)
    rated = game_started(creator=kim, kind="circles", opponents=[SeatSpec(user=lee)])
    for version, (player, square) in enumerate(
        zip([kim, lee] * 2, ["e3", "d3", "c2", "f2"], strict=True)
    ):
        services.move_submit(
            game_id=rated.pk,
            user=player,
            move={"square": square},
            expected_version=rated.version + version,
        )
    services.game_resign(game_id=rated.pk, user=lee)
    page = new_page()
    log_in(page, "kim", PASSWORD)

    page.goto(f"/games/{short.pk}/")
    expect(page.locator("#status")).to_have_text("Game over: You win by resignation.")
    expect(page.locator("#rating")).to_have_text(
        "Not rated: a game is rated once every player has made 2 moves."
    )

    page.goto(f"/games/{rated.pk}/")
    expect(page.locator("#rating")).to_have_text("Your correspondence rating: 1500 → 1662.")
