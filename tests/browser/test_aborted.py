"""An aborted game's page in Chromium says why: a first move not made in time, or the staff."""

import pytest
from playwright.sync_api import expect

from greycircle.games import flags, services
from greycircle.games.clocks import TimeControl
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_aborted_games_page_says_whose_first_move_did_not_come_or_that_staff_stopped_it(
    page, log_in
):
    kim, lee = UserFactory(username="kim"), UserFactory(username="lee")
    late = game_started(
        creator=kim, kind="circles", opponents=[SeatSpec(user=lee)], time_control=TimeControl(1, 0)
    )
    flags.flags_fall(now=Game.objects.get(pk=late.pk).flag_at)  # kim, to move first, never did
    stopped = game_started(creator=kim, kind="circles", opponents=[SeatSpec(user=lee)])
    services.game_abort(game_id=stopped.pk)
    log_in(page, "lee", PASSWORD)

    page.goto(f"/games/{late.pk}/")
    expect(page.locator("#status")).to_have_text(
        "This game was aborted: kim did not make a first move in time. It counts for nobody."
    )
    page.goto(f"/games/{stopped.pk}/")
    expect(page.locator("#status")).to_have_text("This game was stopped by the staff.")
