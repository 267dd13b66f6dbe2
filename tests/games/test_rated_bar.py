"""A player barred from rated games by staff (greycircle.moderation.sanctions) is refused every way
into a rated game between people — creating, joining, accepting, a rematch, a seek — with
`rated_barred` and the end date; casual games and games against computers stay open, and the bar
ends on its date."""

from datetime import timedelta

import pytest
from django.utils import timezone

from greycircle.games import invitations, services
from greycircle.games.errors import GamePermissionDenied
from greycircle.games.models import Game, GameStatus, InvitationStatus
from greycircle.games.rated_bar import rated_bar_check
from greycircle.games.services import SeatSpec
from greycircle.lobby import services as lobby
from greycircle.lobby.models import Seek, SeekStatus
from greycircle.moderation.sanctions import sanction_impose
from tests.factories import UserFactory, game_started, let_anyone_invite

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def barred(alice):
    """alice, barred from rated games for a week by a moderator."""
    moderator = UserFactory(username="mod", is_staff=True)
    sanction_impose(actor=moderator, user_id=alice.pk, kind="rated_bar", reason="Farming.", days=7)
    alice.refresh_from_db()
    return alice


def refused(call):
    with pytest.raises(GamePermissionDenied) as caught:
        call()
    assert caught.value.code == "rated_barred"
    assert caught.value.status == 403
    return caught.value


def test_the_check_names_the_end_and_lapses_with_it(barred):
    error = refused(lambda: rated_bar_check(user=barred))

    assert f"{barred.rated_barred_until:%Y-%m-%d %H:%M} UTC" in error.detail
    rated_bar_check(user=barred, now=barred.rated_barred_until + timedelta(seconds=1))


def test_a_barred_player_cannot_create_a_rated_game_but_a_casual_one(barred, bob):
    let_anyone_invite(bob)
    before = Game.objects.count()

    refused(
        lambda: services.game_create(
            creator=barred, kind="tictactoe", opponents=[SeatSpec(user=bob)]
        )
    )
    refused(lambda: services.game_create(creator=barred, kind="tictactoe", opponents=[SeatSpec()]))

    assert Game.objects.count() == before
    casual = services.game_create(
        creator=barred, kind="tictactoe", opponents=[SeatSpec(user=bob)], rated=False
    )
    assert not casual.rated
    # Against a computer (never rated), even a game left "rated".
    computer = services.game_create(
        creator=barred, kind="tictactoe", opponents=[SeatSpec(ai_level="random")]
    )
    assert computer.status == GameStatus.ACTIVE


def test_a_barred_player_cannot_join_a_rated_table(barred, bob):
    rated = services.game_create(creator=bob, kind="tictactoe", opponents=[SeatSpec()])
    casual = services.game_create(
        creator=bob, kind="tictactoe", opponents=[SeatSpec()], rated=False
    )

    refused(lambda: services.game_join(game_id=rated.pk, user=barred))

    assert services.game_join(game_id=casual.pk, user=barred).status == GameStatus.ACTIVE
    assert Game.objects.get(pk=rated.pk).status == GameStatus.OPEN


def test_a_barred_player_cannot_accept_an_invitation_to_a_rated_game(barred, bob):
    let_anyone_invite(barred)
    game = services.game_create(creator=bob, kind="tictactoe", opponents=[SeatSpec(user=barred)])
    invitation = game.invitations.get()

    refused(lambda: invitations.invitation_accept(invitation_id=invitation.pk, user=barred))

    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.PENDING
    # Declining stays possible.
    invitations.invitation_decline(invitation_id=invitation.pk, user=barred)


def test_a_barred_player_cannot_ask_for_a_rated_rematch(alice, bob):
    rated = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    casual = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], rated=False
    )
    for game in (rated, casual):
        services.game_resign(game_id=game.pk, user=bob)
    moderator = UserFactory(username="mod", is_staff=True)
    sanction_impose(actor=moderator, user_id=alice.pk, kind="rated_bar", reason="Farming.", days=1)
    alice.refresh_from_db()

    refused(lambda: services.game_rematch(game_id=rated.pk, user=alice))

    assert not Game.objects.filter(rematch_of=rated).exists()
    assert services.game_rematch(game_id=casual.pk, user=alice).rematch_of_id == casual.pk


def test_a_barred_player_cannot_seek_a_rated_game_but_a_casual_one(barred):
    refused(lambda: lobby.seek_create(user=barred, kind="tictactoe", days_per_move=1))

    assert not Seek.objects.exists()
    seek = lobby.seek_create(user=barred, kind="tictactoe", days_per_move=1, rated=False)
    assert seek.status == SeekStatus.WAITING


def test_a_seeker_barred_while_waiting_is_left_out_of_rated_pairing(alice, bob):
    lobby.seek_create(user=alice, kind="tictactoe", days_per_move=1)
    moderator = UserFactory(username="mod", is_staff=True)
    sanction_impose(actor=moderator, user_id=alice.pk, kind="rated_bar", reason="Farming.", days=1)

    assert lobby.seek_create(user=bob, kind="tictactoe", days_per_move=1).status == "waiting"

    later = timezone.now() + timedelta(days=2)  # the bar over: paired again
    assert len(lobby.seeks_pair(pool=Seek.objects.get(user=bob).pool, now=later)) == 1


def test_the_api_answers_403_rated_barred_with_the_date(barred, bob, client_for):
    client = client_for(barred)

    response = client.post(
        "/api/v1/games/",
        {"kind": "tictactoe", "seats": [{"open": True}]},
        format="json",
    )

    assert response.status_code == 403
    assert response.json()["code"] == "rated_barred"
    assert f"{barred.rated_barred_until:%Y-%m-%d}" in response.json()["detail"]
    casual = client.post(
        "/api/v1/games/",
        {"kind": "tictactoe", "seats": [{"open": True}], "rated": False},
        format="json",
    )
    assert casual.status_code == 201
