"""The patterns of rating farming are flagged for staff: one account losing quickly to the same
account again and again, or one account winning many games that the losers gave up at once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from greycircle.games import selectors, services
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from greycircle.moderation.models import Flag, FlagKind
from greycircle.moderation.services import flags_review
from greycircle.ratings import suspicion
from tests.factories import UserFactory, game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

X_WINS = [0, 3, 1, 4, 2]  # X (seat 0) takes the top row; O made two moves
LONG_LOSS = [0, 3, 6, 4, 5, 2, 1, 7]  # O has made four moves when it resigns: still quick


def play(game, cells) -> Game:
    for cell in cells:
        game.refresh_from_db()
        player = game.seats.all()[game.to_move].user
        services.move_submit(
            game_id=game.pk, user=player, move={"cell": cell}, expected_version=game.version
        )
    return game


def loses_quickly(loser, winner, cells=()) -> Game:
    """`winner` (seat 0) against `loser`, who resigns after `cells`."""
    game = play(
        game_started(creator=winner, kind="tictactoe", opponents=[SeatSpec(user=loser)]), cells
    )
    services.game_resign(game_id=game.pk, user=loser)
    return game


def test_an_account_losing_quickly_to_the_same_account_is_flagged(alice, bob):
    loses_quickly(bob, alice)
    loses_quickly(bob, alice, [0, 3])
    assert not Flag.objects.exists(), "twice is not yet a pattern"

    third = loses_quickly(bob, alice, LONG_LOSS)

    [flag] = Flag.objects.all()
    assert (flag.kind, flag.user, flag.other_user, flag.games, flag.game_id) == (
        FlagKind.QUICK_LOSSES,
        alice,
        bob,
        3,
        third.pk,
    )
    assert flag.description == "bob lost quickly (fewer than 5 moves) to alice 3 times in 7 days."
    assert flag.reviewed_at is None


def test_the_open_flag_follows_the_pattern_and_a_new_one_opens_after_review(alice, bob, staff):
    for _ in range(3):
        loses_quickly(bob, alice)
    fourth = loses_quickly(bob, alice)
    [flag] = Flag.objects.all()
    assert (flag.games, flag.game_id) == (4, fourth.pk)

    flags_review(actor=staff, flag_ids=[flag.pk], reason="Spare account; deactivated it.")
    loses_quickly(bob, alice)

    reviewed, reopened = Flag.objects.order_by("pk")
    assert reviewed.reviewed_by == staff
    assert reopened.reviewed_at is None
    assert reopened.games == 5


def test_a_loss_after_five_moves_of_ones_own_is_not_quick(alice, bob):
    for _ in range(suspicion.QUICK_LOSSES_TO_ONE):
        game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
        for _ in range(2 * suspicion.QUICK_LOSS_MOVES):  # five moves each
            game.refresh_from_db()
            player = game.seats.all()[game.to_move].user
            move = selectors.game_view_for(game=game, viewer=player)["legal_moves"][0]
            services.move_submit(
                game_id=game.pk, user=player, move=move, expected_version=game.version
            )
        services.game_resign(game_id=game.pk, user=bob)

    assert not Flag.objects.exists()


def test_losses_older_than_the_window_do_not_count(alice, bob):
    for _ in range(suspicion.QUICK_LOSSES_TO_ONE - 1):
        loses_quickly(bob, alice)
    Game.objects.update(finished_at=timezone.now() - suspicion.SUSPICION_WINDOW - timedelta(1))

    loses_quickly(bob, alice)

    assert not Flag.objects.exists()


def test_the_other_way_round_is_another_pattern(alice, bob):
    loses_quickly(bob, alice)
    loses_quickly(bob, alice)
    loses_quickly(alice, bob)

    assert not Flag.objects.exists()
    loses_quickly(bob, alice)
    assert [(flag.user, flag.other_user) for flag in Flag.objects.all()] == [(alice, bob)]


def test_one_account_winning_many_quick_games_against_spares_is_flagged(alice):
    spares = UserFactory.create_batch(suspicion.QUICK_WINS)
    for spare in spares[:-1]:
        loses_quickly(spare, alice)
    assert not Flag.objects.filter(kind=FlagKind.QUICK_WINS).exists()

    last = loses_quickly(spares[-1], alice)

    flag = Flag.objects.get(kind=FlagKind.QUICK_WINS)
    assert (flag.user, flag.other_user, flag.games, flag.game_id) == (alice, None, 10, last.pk)
    assert flag.description == (
        "alice won 10 games in 7 days in which the loser made fewer than 5 moves, "
        "against 10 accounts."
    )


def test_games_against_computers_are_not_looked_at(alice):
    for _ in range(suspicion.QUICK_WINS):
        game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])
        services.game_resign(game_id=game.pk, user=alice)

    assert not Flag.objects.exists()
