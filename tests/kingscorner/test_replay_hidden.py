"""A King's Corner replay shows each viewer, at every step, only what they could see then.

Games of 3-6 seats (people and computers) are played to the end through the services; then the
replay of every seat and of a spectator is checked step by step against the true state after that
many moves (replayed from the seed): no card of another seat's hand, no card of the stock (nor its
order), no seed; each step is exactly the viewer's view at that moment, and its log entry shows
only cards the viewer had seen by then. The players' replays are fetched through the API.
"""

from __future__ import annotations

import json
import random

import pytest
from django.core.serializers.json import DjangoJSONEncoder

from greycircle.games import replays, selectors, services
from greycircle.games.models import GameStatus
from greycircle.games.services import SeatSpec
from kingscorner.cards import card_name
from kingscorner.rules import RULES
from tests.factories import UserFactory, game_started
from tests.kingscorner.test_hidden_information import (
    Truth,
    cards_in,
    choose,
    hidden_from,
    states_by_move_count,
)

pytestmark = pytest.mark.django_db

GAMES = 6
MAX_ACTIONS = 600


def play_to_the_end(rng: random.Random, *, resign_after: int | None = None):
    """A game of people and computers played out (or resigned by seat 1 after some moves)."""
    seat_count = rng.randint(3, 6)
    people = [UserFactory() for _ in range(rng.randint(2, min(3, seat_count)))]
    computers = [rng.choice(["easy", "normal"]) for _ in range(seat_count - len(people))]
    game = game_started(
        creator=people[0],
        kind="kingscorner",
        opponents=[SeatSpec(user=user) for user in people[1:]]
        + [SeatSpec(ai_level=level) for level in computers],
    )
    for _ in range(MAX_ACTIONS):
        game = selectors.game_get(game_id=game.pk)
        if game.status != GameStatus.ACTIVE:
            return game, people
        if resign_after is not None and game.move_count >= resign_after:
            services.game_resign(game_id=game.pk, user=people[1])
            continue
        if game.to_move >= len(people):
            assert services.ai_take_turn(game_id=game.pk, expected_version=game.version)
            continue
        user = people[game.to_move]
        envelope = selectors.game_view_for(game=game, viewer=user)
        services.move_submit(
            game_id=game.pk,
            user=user,
            move=choose(envelope, rng),
            expected_version=game.version,
        )
    pytest.fail(f"the game did not end within {MAX_ACTIONS} actions")


def check_steps(truth: Truth, seat: int | None, steps: list[dict]) -> None:
    game, states = truth.game, truth.states
    assert [step["number"] for step in steps] == list(range(len(states)))
    for step, state in zip(steps, states, strict=True):
        number = step["number"]
        text = json.dumps(step, cls=DjangoJSONEncoder)
        assert str(game.seed) not in text, "the seed reached a viewer"
        assert '"seed"' not in text
        leaked = cards_in(text) & hidden_from(state, seat)
        assert not leaked, f"seat {seat} saw {leaked} at step {number}"
        # Exactly the viewer's view then: their own hand of that moment, the stock's size only.
        assert json.loads(json.dumps(step["state"])) == RULES.view(state, seat)
        assert step["state"]["stock"] == len(state.stock)
        if seat is not None:
            assert step["state"]["hand"] == [card_name(card) for card in state.hands[seat]]
        assert ("final_hands" in step["state"]) == state.over
        if step["move"] is not None:
            shown = cards_in(json.dumps(step["move"], cls=DjangoJSONEncoder))
            assert shown <= truth.seen_by(seat, number), (seat, number, step["move"])
            drawn = step["move"].get("card") if step["move"]["action"] == "end_turn" else None
            if drawn is not None:
                assert step["move"]["seat"] == seat, "only the drawer sees the card drawn"


@pytest.mark.parametrize("resign", [False, True], ids=["played out", "resigned"])
def test_every_step_of_every_replay_shows_only_what_its_viewer_could_see(resign, client_for):
    rng = random.Random(20261201 + resign)
    checked = 0
    for _ in range(GAMES // 2):
        game, people = play_to_the_end(rng, resign_after=rng.randint(10, 40) if resign else None)
        truth = Truth(game, states_by_move_count(game))
        assert len(truth.states) == game.move_count + 1
        if not resign:
            assert truth.states[-1].over, "played out to the rules' end"
        # Every seat's replay (computers' seats too) and a spectator's, computed.
        for seat in [*range(len(game.seats.all())), None]:
            check_steps(truth, seat, replays.replay_steps(game=game, seat=seat))
            checked += 1
        # The players', a spectator's, through the API.
        for seat, user in [*enumerate(people), (None, UserFactory())]:
            response = client_for(user).get(f"/api/v1/games/{game.pk}/replay/")
            assert response.status_code == 200
            assert response.json()["you"] == seat
            check_steps(truth, seat, response.json()["steps"])
    assert checked >= GAMES // 2 * 4


def test_the_hands_show_only_at_the_end_of_a_game_played_out(client_for):
    game, people = play_to_the_end(random.Random(7))
    steps = client_for(people[0]).get(f"/api/v1/games/{game.pk}/replay/").json()["steps"]

    assert "final_hands" in steps[-1]["state"]
    assert all("final_hands" not in step["state"] for step in steps[:-1])
    assert all("hand" in step["state"] for step in steps)
