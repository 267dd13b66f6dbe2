"""Takebacks in casual games between two people: asked, accepted or declined, and refused
everywhere else (greycircle.games.takebacks).

Tic-tac-toe stands in for a kind without hidden information (registered here with takebacks);
Circles is the real one, King's Corner one with hidden information.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from greycircle.games import registry, selectors, services, takebacks
from greycircle.games.clocks import TimeControl
from greycircle.games.errors import GameInvalid, GameNotFound, GamePermissionDenied
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec
from tests.factories import game_started
from tests.games.conftest import refusal
from tests.games.tictactoe import GAME_KIND as TICTACTOE

pytestmark = pytest.mark.django_db

LAG = 300  # GAMES_CLOCK_LAG_ALLOWANCE_MS, the default
MINUTE = 60_000


@pytest.fixture(autouse=True)
def tictactoe_with_takebacks():
    registry.register(dataclasses.replace(TICTACTOE, takebacks=True))
    yield
    registry.unregister(TICTACTOE.kind)


def casual(alice, bob, **options) -> Game:
    """A casual game of tic-tac-toe in play: alice (seat 0, to move) against bob."""
    return game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], rated=False, **options
    )


def fresh(game: Game) -> Game:
    return Game.objects.with_seats().get(pk=game.pk)


def play(game: Game, user, cell: int, **kwargs) -> Game:
    return services.move_submit(
        game_id=game.pk,
        user=user,
        move={"cell": cell},
        expected_version=fresh(game).version,
        **kwargs,
    )


def offer(game: Game, user) -> Game:
    return takebacks.takeback_offer(game_id=game.pk, user=user)


def accept(game: Game, user, **kwargs) -> Game:
    return takebacks.takeback_accept(game_id=game.pk, user=user, **kwargs)


def decline(game: Game, user) -> Game:
    return takebacks.takeback_decline(game_id=game.pk, user=user)


def cells(game: Game) -> list:
    return selectors.game_view_for_seat(game=fresh(game), seat=None)["state"]["cells"]


def test_the_opponent_accepts_and_the_askers_move_is_undone(alice, bob):
    game = play(casual(alice, bob), alice, 4)
    asked = offer(game, alice)
    envelope = selectors.game_view_for(game=asked, viewer=bob)
    assert envelope["takebacks"] is True
    assert envelope["takeback"] == {"seat": 0, "moves": 1}
    assert asked.version == game.version + 1

    undone = accept(game, bob)

    assert undone.move_count == 0
    assert undone.to_move == 0
    assert undone.version == asked.version + 1
    assert not undone.moves.exists()
    assert cells(undone) == cells(casual(alice, bob))
    assert selectors.game_view_for(game=fresh(undone), viewer=alice)["takeback"] is None
    # The game goes on from there, the move numbers again from 1.
    assert play(undone, alice, 0).moves.get().number == 1


def test_after_the_opponents_reply_both_moves_are_undone_so_it_is_the_askers_turn(alice, bob):
    game = play(play(play(casual(alice, bob), alice, 4), bob, 0), alice, 8)
    # bob asks on his turn: his move 2 and alice's move 3 after it.
    assert selectors.takeback_offer_of(game=offer(game, bob)) == {"seat": 1, "moves": 2}

    undone = accept(game, alice)

    assert undone.move_count == 1
    assert undone.to_move == 1
    assert list(undone.moves.values_list("number", "seat")) == [(1, 0)]
    assert cells(undone) == cells(play(casual(alice, bob), alice, 4))
    # The state kept is the one the remaining log replays to.
    assert fresh(undone).state == selectors.game_replay(game=fresh(undone))


def test_circles_takes_moves_back_from_its_board(alice, bob):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)], rated=False)
    start = fresh(game).state
    rules = registry.get("circles").rules
    first = rules.move_to_json(rules.legal_moves(rules.decode(start))[0])
    seat = game.to_move
    player = alice if seat == 0 else bob
    services.move_submit(game_id=game.pk, user=player, move=first, expected_version=game.version)

    offer(game, player)
    undone = accept(game, bob if player is alice else alice)

    assert fresh(undone).state == start
    assert undone.to_move == seat


def test_declined_the_request_is_gone_and_not_asked_again_at_that_move(alice, bob):
    game = play(casual(alice, bob), alice, 4)
    offer(game, alice)

    declined = decline(game, bob)

    assert selectors.takeback_offer_of(game=declined) is None
    assert declined.move_count == 1
    assert refusal(GameInvalid, offer, game=game, user=alice).code == "takeback_already_asked"
    # After another move it may be asked again.
    offer(play(game, bob, 0), alice)


def test_the_asker_withdraws_the_request(alice, bob):
    game = play(casual(alice, bob), alice, 4)
    offer(game, alice)
    assert selectors.takeback_offer_of(game=decline(game, alice)) is None


def test_any_move_cancels_the_request(alice, bob):
    game = play(casual(alice, bob), alice, 4)
    offer(game, alice)

    moved = play(game, bob, 0)

    assert selectors.game_view_for(game=moved, viewer=alice)["takeback"] is None
    assert refusal(GameInvalid, accept, game=game, user=bob).code == "no_offer"


def test_one_request_at_a_time(alice, bob):
    game = play(play(casual(alice, bob), alice, 4), bob, 0)
    offer(game, alice)
    assert refusal(GameInvalid, offer, game=game, user=bob).code == "takeback_pending"


def test_the_asker_does_not_answer_their_own_request(alice, bob):
    game = play(casual(alice, bob), alice, 4)
    offer(game, alice)
    assert refusal(GamePermissionDenied, accept, game=game, user=alice).code == "not_your_offer"


def test_nothing_to_answer(alice, bob):
    game = play(casual(alice, bob), alice, 4)
    assert refusal(GameInvalid, accept, game=game, user=bob).code == "no_offer"
    assert refusal(GameInvalid, decline, game=game, user=bob).code == "no_offer"


def test_nothing_to_take_back_before_ones_first_move(alice, bob):
    game = play(casual(alice, bob), alice, 4)
    assert refusal(GameInvalid, offer, game=game, user=bob).code == "nothing_to_take_back"


def test_never_in_a_rated_game(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    game = play(game, alice, 4)
    assert selectors.takebacks_allowed(game=game) is False
    assert refusal(GameInvalid, offer, game=game, user=alice).code == "rated_game"


def test_never_in_a_kind_with_hidden_information(alice, bob):
    game = game_started(
        creator=alice, kind="kingscorner", opponents=[SeatSpec(user=bob)], rated=False
    )
    assert selectors.takebacks_allowed(game=game) is False
    assert refusal(GameInvalid, offer, game=game, user=alice).code == "no_takebacks"


def test_never_against_a_computer(alice):
    game = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")], rated=False
    )
    game = play(game, alice, 4)
    assert refusal(GameInvalid, offer, game=game, user=alice).code == "not_two_people"


def test_only_in_play_and_only_for_its_players(alice, bob, carol):
    game = play(casual(alice, bob), alice, 4)
    assert refusal(GamePermissionDenied, offer, game=game, user=carol).code == "not_a_player"
    services.game_resign(game_id=game.pk, user=bob)
    assert refusal(GameInvalid, offer, game=game, user=alice).code == "game_not_active"
    assert refusal(GameNotFound, offer, game=Game(pk=10**6), user=alice).code == "not_found"


def test_a_request_pending_when_the_game_ends_lapses(alice, bob):
    game = play(casual(alice, bob), alice, 4)
    offer(game, alice)
    services.game_resign(game_id=game.pk, user=bob)
    assert selectors.takeback_offer_of(game=fresh(game)) is None
    assert refusal(GameInvalid, accept, game=game, user=bob).code == "no_offer"


def live_game(alice, bob) -> Game:
    """A casual 5+0 game with both first turns behind it and alice's second move played: bob to
    move, his clock running."""
    game = casual(alice, bob, time_control=TimeControl(5, 0))
    return play(play(play(game, alice, 4), bob, 0), alice, 8)


def test_a_live_takeback_refunds_nothing_and_starts_the_askers_clock(alice, bob):
    game = live_game(alice, bob)
    offer(game, alice)
    before = fresh(game)
    now = before.clock_started_at + timedelta(seconds=10)

    undone = accept(game, bob, now=now)

    # bob paid for his 10 s less the allowance; alice has what she had; her clock runs from now.
    assert undone.clock_remaining_ms == [
        before.clock_remaining_ms[0],
        before.clock_remaining_ms[1] - (10_000 - LAG),
    ]
    clock = selectors.game_view_for(game=fresh(undone), viewer=bob)["clock"]
    assert clock["running"] == 0
    assert undone.clock_started_at == now
    assert undone.flag_at == now + timedelta(milliseconds=before.clock_remaining_ms[0] + LAG)


def test_a_live_takeback_accepted_after_the_flag_ends_the_game_on_time(alice, bob):
    game = live_game(alice, bob)
    offer(game, alice)
    late = fresh(game).flag_at + timedelta(seconds=1)

    assert refusal(GameInvalid, accept, game=game, user=bob, now=late).code == "time_up"

    ended = fresh(game)
    assert ended.status == GameStatus.FINISHED
    assert ended.outcome["reason"] == "timeout"
    assert ended.outcome["winners"] == [0]
    assert ended.move_count == 3


def test_a_correspondence_takeback_gives_the_asker_a_new_time_per_move(alice, bob):
    game = play(casual(alice, bob), alice, 4)
    offer(game, alice)
    undone = accept(game, bob)
    assert undone.move_deadline > timezone.now() + timedelta(days=game.days_per_move - 1)


def test_the_api_answers_the_envelope_and_refuses_with_the_error_shape(alice, bob, client_for):
    game = play(casual(alice, bob), alice, 4)
    url = f"/api/v1/games/{game.pk}/takeback/"

    asked = client_for(alice).post(url, {"action": "offer"}, format="json")
    assert asked.status_code == 200, asked.json()
    assert asked.json()["takeback"] == {"seat": 0, "moves": 1}

    own = client_for(alice).post(url, {"action": "accept"}, format="json")
    assert own.status_code == 403
    assert own.json()["code"] == "not_your_offer"
    bad = client_for(bob).post(url, {"action": "undo"}, format="json")
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid"

    accepted = client_for(bob).post(url, {"action": "accept"}, format="json")
    assert accepted.status_code == 200
    assert accepted.json()["move_count"] == 0
    assert fresh(game).takeback_offer is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_the_other_players_page_sees_the_request_at_once(alice, bob):
    from tests.games.test_consumers import open_socket, signed_in

    game = await sync_to_async(lambda: play(casual(alice, bob), alice, 4))()
    _, b_cookie = await sync_to_async(signed_in)(bob)
    socket = await open_socket(f"/ws/games/{game.pk}/", b_cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["envelope"]["takeback"] is None

    await sync_to_async(offer)(game, alice)

    frame = await socket.receive_json_from()
    assert frame["envelope"]["takeback"] == {"seat": 0, "moves": 1}
    assert frame["envelope"]["you"] == 1
    await sync_to_async(accept)(game, bob)
    frame = await socket.receive_json_from()
    assert frame["envelope"]["takeback"] is None
    assert frame["envelope"]["move_count"] == 0
    await socket.disconnect()
