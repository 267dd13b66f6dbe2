"""Abandoned live games: a person whose sockets have all been gone for GAMES_CLOCK_ABANDON_SECONDS
lets the others claim the win; the clocks' loop tells their pages once, and once more should the
player come back.

Presence is set directly in the cache (greycircle.presence), a departure dated in the past rather
than waited for.
"""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache

from greycircle.games import selectors, services
from greycircle.games.clocks import TimeControl
from greycircle.games.deadlines import abandonments_check, game_claim_win
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec
from greycircle.presence import (
    presence_gone_key,
    presence_socket_closed,
    presence_socket_opened,
    users_gone_since,
)
from tests.factories import game_started
from tests.games.conftest import live_past_first_turns, refusal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

ABANDON = 30  # GAMES_CLOCK_ABANDON_SECONDS, the default


def fresh(game: Game) -> Game:
    return Game.objects.with_seats().get(pk=game.pk)


@pytest.fixture
def live(alice, bob):
    """alice against bob at 5+0, both past their first moves and on the site; alice to move."""
    presence_socket_opened(user_id=alice.pk)
    presence_socket_opened(user_id=bob.pk)
    return live_past_first_turns(creator=alice, opponent=bob, time_control=TimeControl(5, 0))


def left(user, *, seconds_ago: float) -> None:
    """`user`'s last socket closed `seconds_ago`."""
    presence_socket_closed(user_id=user.pk)
    cache.set(presence_gone_key(user.pk), time.time() - seconds_ago)


@pytest.fixture
def announced(
    notifications, deliver_notifications, django_capture_on_commit_callbacks, monkeypatch
):
    """A check of the clocks' loop: what it did, the envelopes it published and the live
    events it sent (the game's start and moves before it are left out)."""
    published: list[int] = []
    monkeypatch.setattr(
        "greycircle.games.events.game_envelopes_send", lambda *, game: published.append(game.pk)
    )
    deliver_notifications()
    notifications.clear()

    def check() -> dict[int, bool]:
        with django_capture_on_commit_callbacks(execute=True):
            done = abandonments_check()
        deliver_notifications()
        return done

    check.published = published
    check.events = notifications
    return check


def test_a_player_gone_half_a_minute_lets_the_other_claim_the_win_announced_once(
    live, alice, bob, announced
):
    left(alice, seconds_ago=ABANDON + 1)  # alice, to move, closed her last tab

    assert announced() == {live.pk: True}

    game = fresh(live)
    assert game.version == live.version + 1
    assert game.status == GameStatus.ACTIVE  # until bob claims it
    assert announced.published == [live.pk]
    assert announced.events == [
        (bob.pk, "win_claimable", {"game": live.pk, "kind": "tictactoe", "player": "alice"})
    ]
    assert selectors.game_view_for(game=game, viewer=bob)["can_claim"] is True
    assert selectors.game_view_for(game=game, viewer=alice)["can_claim"] is False
    # Other workers' loops, or this one again, announce nothing more.
    assert announced() == {}
    assert fresh(live).version == game.version

    won = game_claim_win(game_id=live.pk, user=bob)

    assert (won.status, won.outcome["winners"], won.outcome["reason"]) == (
        GameStatus.FINISHED,
        [1],
        "timeout",
    )


def test_whoever_is_to_move_the_one_who_stayed_may_claim(live, alice, bob, announced):
    left(bob, seconds_ago=ABANDON + 1)  # bob is not to move: his clock is not even running
    assert announced() == {live.pk: True}
    assert selectors.game_view_for(game=fresh(live), viewer=alice)["can_claim"] is True
    assert game_claim_win(game_id=live.pk, user=alice).outcome["winners"] == [0]


def test_before_the_half_minute_the_claim_waits_and_nothing_is_announced(
    live, alice, bob, announced
):
    left(alice, seconds_ago=ABANDON - 10)

    assert announced() == {}
    assert selectors.game_view_for(game=fresh(live), viewer=bob)["can_claim"] is False
    refused = refusal(GameInvalid, game_claim_win, game_id=live.pk, user=bob)
    assert refused.code == "time_not_up"
    assert "10 seconds" in refused.detail

    presence_socket_opened(user_id=alice.pk)  # she is back
    assert refusal(GameInvalid, game_claim_win, game_id=live.pk, user=bob) == (
        "time_not_up",
        "Everybody is still at the table.",
    )


def test_a_player_who_comes_back_takes_the_claim_back_announced_once_more(
    live, alice, bob, announced
):
    left(alice, seconds_ago=ABANDON + 1)
    announced()
    presence_socket_opened(user_id=alice.pk)

    assert announced() == {live.pk: False}

    game = fresh(live)
    assert game.version == live.version + 2
    assert selectors.game_view_for(game=game, viewer=bob)["can_claim"] is False
    assert refusal(GameInvalid, game_claim_win, game_id=live.pk, user=bob).code == "time_not_up"
    assert announced() == {}


def test_the_claim_stays_open_across_the_moves_of_the_one_who_stayed(live, alice, bob, announced):
    left(bob, seconds_ago=ABANDON + 1)
    announced()
    game = services.move_submit(
        game_id=live.pk, user=alice, move={"cell": 8}, expected_version=fresh(live).version
    )
    assert selectors.game_view_for(game=fresh(game), viewer=alice)["can_claim"] is True
    assert announced() == {}


def test_in_kings_corner_for_three_the_clock_decides_not_a_claim(alice, bob, carol, announced):
    for user in (alice, bob, carol):
        presence_socket_opened(user_id=user.pk)
    game = game_started(
        creator=alice,
        kind="kingscorner",
        opponents=[SeatSpec(user=bob), SeatSpec(user=carol)],
        time_control=TimeControl(3, 5),
    )
    for user in (alice, bob, carol):
        game = services.move_submit(
            game_id=game.pk, user=user, move={"action": "end_turn"}, expected_version=game.version
        )
    left(alice, seconds_ago=ABANDON + 1)

    assert announced() == {}
    assert refusal(GameInvalid, game_claim_win, game_id=game.pk, user=bob).code == (
        "takeover_instead"
    )


def test_presence_records_since_when_a_user_is_gone():
    presence_socket_opened(user_id=7)
    presence_socket_opened(user_id=7)
    presence_socket_closed(user_id=7)
    assert users_gone_since([7]) == {}  # one socket still open
    before = time.time()
    presence_socket_closed(user_id=7)
    (since,) = users_gone_since([7]).values()
    assert before <= since <= time.time()
    # Never seen, or their server died: gone from the first time anybody asks.
    assert users_gone_since([8], now=1000.0) == {8: 1000.0}
    assert users_gone_since([8], now=2000.0) == {8: 1000.0}
    presence_socket_opened(user_id=8)
    assert users_gone_since([8]) == {}
