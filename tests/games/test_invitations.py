"""Invitations with consent: an invited player holds their seat, and the game starts only when
every invited player has accepted. Services, then the API (`/api/v1/invitations/`)."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts import friends
from accounts.models import Block
from greycircle.games import invitations, services
from greycircle.games.errors import GameInvalid, GameNotFound, GamePermissionDenied
from greycircle.games.models import Game, GameStatus, Invitation, InvitationStatus, OnDecline
from greycircle.games.services import SeatSpec
from tests.factories import befriend, let_anyone_invite
from tests.games.conftest import refusal

pytestmark = [pytest.mark.usefixtures("tictactoe"), pytest.mark.django_db]


def invite(creator, *invitees, kind="tictactoe", **options) -> Game:
    return services.game_create(
        creator=creator, kind=kind, opponents=[SeatSpec(user=user) for user in invitees], **options
    )


def invitation_of(game: Game, user) -> Invitation:
    return Invitation.objects.get(game=game, invitee=user)


# --- who can be invited ------------------------------------------------------------------------


def test_a_stranger_who_accepts_invitations_only_from_friends_cannot_be_invited(alice, bob):
    with pytest.raises(GameInvalid) as refused:
        invite(alice, bob)
    assert (refused.value.code, refused.value.detail) == (
        "bad_seats",
        "bob only accepts invitations from friends.",
    )
    assert not Game.objects.exists()
    assert not Invitation.objects.exists()


def test_a_friend_can_be_invited(alice, bob):
    befriend(alice, bob)
    game = invite(alice, bob)
    assert invitation_of(game, bob).status == InvitationStatus.PENDING


def test_anyone_can_invite_a_player_who_allows_it(alice, bob):
    let_anyone_invite(bob)
    game = invite(alice, bob)
    assert invitation_of(game, bob).inviter == alice


@pytest.mark.parametrize("blocker", ["alice", "bob"])
def test_a_blocked_user_cannot_be_invited_even_by_a_former_friend(blocker, alice, bob):
    befriend(alice, bob)
    let_anyone_invite(bob)
    users = {"alice": alice, "bob": bob}
    friends.user_block(
        blocker=users[blocker], username=(bob if blocker == "alice" else alice).username
    )
    with pytest.raises(GameInvalid) as refused:
        invite(alice, bob)
    assert (refused.value.code, refused.value.detail) == ("bad_seats", "bob cannot be invited.")
    assert not Game.objects.exists()


def test_games_against_computers_and_open_tables_are_unchanged(alice):
    computer = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    table = services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec()])
    assert computer.status == GameStatus.ACTIVE
    assert table.status == GameStatus.OPEN
    assert not Invitation.objects.exists()


# --- waiting, accepting ------------------------------------------------------------------------


def test_an_invited_seat_is_held_and_the_game_waits(alice, bob, carol, settings):
    settings.GAMES_INVITATION_DAYS = 2
    let_anyone_invite(bob)
    before = timezone.now()
    game = invite(alice, bob)

    assert game.status == GameStatus.OPEN
    assert game.state == {}
    seat = game.seats.all()[1]
    assert (seat.user, seat.joined_at) == (bob, None)
    invitation = invitation_of(game, bob)
    assert invitation.seat == 1
    assert before + timedelta(days=2) <= invitation.expires_at <= timezone.now() + timedelta(days=2)
    # Nobody else can take a promised seat.
    assert refusal(GameInvalid, services.game_join, game_id=game.pk, user=carol)[0] == "not_open"


def test_the_game_starts_only_when_the_last_invitation_is_accepted(
    alice, bob, carol, notifications, deliver_notifications
):
    let_anyone_invite(bob, carol)
    game = invite(alice, bob, carol, kind="kingscorner")

    game = invitations.invitation_accept(invitation_id=invitation_of(game, bob).pk, user=bob)
    deliver_notifications()
    assert game.status == GameStatus.OPEN
    assert (alice.pk, "invitation_accepted") in [(uid, event) for uid, event, _ in notifications]

    game = invitations.invitation_accept(invitation_id=invitation_of(game, carol).pk, user=carol)
    deliver_notifications()
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE
    assert game.state
    assert all(seat.joined_at for seat in game.seats.all())
    to_move = game.seats.all()[game.to_move].user_id
    assert (to_move, "your_turn") in [(uid, event) for uid, event, _ in notifications]


def test_the_invitee_is_notified_with_the_invitation(
    alice, bob, notifications, django_capture_on_commit_callbacks, deliver_notifications
):
    let_anyone_invite(bob)
    with django_capture_on_commit_callbacks(execute=True):
        game = invite(alice, bob)
    deliver_notifications()
    [(user_id, _, data)] = [n for n in notifications if n[1] == "invitation"]
    assert (user_id, data["by"], data["invitation"]) == (
        bob.pk,
        "alice",
        invitation_of(game, bob).pk,
    )


def test_only_the_invitee_may_accept(alice, bob, carol):
    let_anyone_invite(bob)
    invitation = invitation_of(invite(alice, bob), bob)

    assert refusal(
        GamePermissionDenied, invitations.invitation_accept, invitation_id=invitation.pk, user=alice
    ) == ("not_invitee", "Only the invited player can answer this invitation.")
    # Someone else's invitation is not even there for a third player.
    assert (
        refusal(
            GameNotFound, invitations.invitation_accept, invitation_id=invitation.pk, user=carol
        )[0]
        == "not_found"
    )
    assert (
        refusal(GameNotFound, invitations.invitation_accept, invitation_id=99999, user=bob)[0]
        == "not_found"
    )
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.PENDING


def test_accepting_twice_is_refused(alice, bob):
    let_anyone_invite(bob)
    invitation = invitation_of(invite(alice, bob), bob)
    invitations.invitation_accept(invitation_id=invitation.pk, user=bob)
    version = Game.objects.get().version

    code, _ = refusal(
        GameInvalid, invitations.invitation_accept, invitation_id=invitation.pk, user=bob
    )
    assert code == "invitation_not_pending"
    assert refusal(
        GameInvalid, invitations.invitation_decline, invitation_id=invitation.pk, user=bob
    )[0] == ("invitation_not_pending")
    assert Game.objects.get().version == version


# --- declining, withdrawing, expiring ----------------------------------------------------------


def test_a_declined_invitation_cancels_the_game_by_default(
    alice, bob, carol, notifications, deliver_notifications
):
    let_anyone_invite(bob, carol)
    game = invite(alice, bob, carol, kind="kingscorner")

    invitations.invitation_decline(invitation_id=invitation_of(game, bob).pk, user=bob)
    deliver_notifications()

    game.refresh_from_db()
    assert game.status == GameStatus.CANCELLED
    assert game.outcome is None
    assert invitation_of(game, bob).status == InvitationStatus.DECLINED
    # Carol's invitation to the cancelled game is closed too: she cannot accept it any more.
    assert invitation_of(game, carol).status == InvitationStatus.CANCELLED
    assert (alice.pk, "invitation_declined") in [(uid, event) for uid, event, _ in notifications]


def test_a_declined_invitation_can_open_the_seat_instead(alice, bob, carol):
    let_anyone_invite(bob)
    game = invite(alice, bob, on_decline="open_seat")

    invitations.invitation_decline(invitation_id=invitation_of(game, bob).pk, user=bob)

    game = Game.objects.with_seats().get(pk=game.pk)
    assert game.status == GameStatus.OPEN
    assert game.seats.all()[1].is_open
    # Anyone may now join in that seat; the game starts.
    assert services.game_join(game_id=game.pk, user=carol).status == GameStatus.ACTIVE


def test_a_bad_on_decline_is_refused(alice, bob):
    let_anyone_invite(bob)
    assert refusal(
        GameInvalid,
        services.game_create,
        creator=alice,
        kind="tictactoe",
        opponents=[SeatSpec(user=bob)],
        on_decline="shrug",
    )[0] == ("bad_on_decline")


def test_the_inviter_withdraws_an_invitation(alice, bob, notifications, deliver_notifications):
    let_anyone_invite(bob)
    game = invite(alice, bob, on_decline="open_seat")
    invitation = invitation_of(game, bob)
    assert refusal(
        GamePermissionDenied, invitations.invitation_cancel, invitation_id=invitation.pk, user=bob
    )[0] == ("not_inviter")

    invitations.invitation_cancel(invitation_id=invitation.pk, user=alice)
    deliver_notifications()

    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.CANCELLED
    assert Game.objects.with_seats().get(pk=game.pk).seats.all()[1].is_open
    assert (bob.pk, "invitation_cancelled") in [(uid, event) for uid, event, _ in notifications]


def test_withdrawing_the_game_closes_its_invitations(alice, bob):
    let_anyone_invite(bob)
    game = invite(alice, bob)
    services.game_cancel(game_id=game.pk, user=alice)
    assert invitation_of(game, bob).status == InvitationStatus.CANCELLED


def test_an_expired_invitation_cannot_be_accepted_and_is_expired_by_the_sweep(
    alice, bob, carol, notifications, deliver_notifications
):
    let_anyone_invite(bob, carol)
    cancelled = invite(alice, bob)
    opened = invite(alice, carol, on_decline="open_seat")
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    late = invitation_of(cancelled, bob)

    assert refusal(GameInvalid, invitations.invitation_accept, invitation_id=late.pk, user=bob) == (
        "invitation_expired",
        "This invitation has expired.",
    )

    expired = invitations.invitations_expire()
    deliver_notifications()

    assert sorted(expired) == sorted(Invitation.objects.values_list("pk", flat=True))
    assert set(Invitation.objects.values_list("status", flat=True)) == {InvitationStatus.EXPIRED}
    assert Game.objects.get(pk=cancelled.pk).status == GameStatus.CANCELLED
    opened = Game.objects.with_seats().get(pk=opened.pk)
    assert opened.status == GameStatus.OPEN
    assert opened.seats.all()[1].is_open
    assert [uid for uid, event, _ in notifications if event == "invitation_expired"] == [
        alice.pk,
        alice.pk,
    ]
    # Run again: nothing left to expire.
    assert invitations.invitations_expire() == []


def test_an_invitation_not_yet_due_is_left_alone(alice, bob):
    let_anyone_invite(bob)
    game = invite(alice, bob)
    assert invitations.invitations_expire() == []
    assert invitation_of(game, bob).status == InvitationStatus.PENDING


def test_the_worker_sweep_expires_invitations(alice, bob):
    from greycircle.runtime.sweeps import sweeps_registered

    let_anyone_invite(bob)
    game = invite(alice, bob)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    for sweep in sweeps_registered():  # one round of every worker's sweeps
        sweep.run()
    assert invitation_of(game, bob).status == InvitationStatus.EXPIRED


# --- a block parts the two wherever a game has not started ------------------------------------


@pytest.mark.parametrize("blocker", ["inviter", "invitee"])
def test_a_block_closes_a_pending_invitation_between_the_two(blocker, alice, bob):
    let_anyone_invite(bob)
    game = invite(alice, bob)
    if blocker == "inviter":
        friends.user_block(blocker=alice, username="bob")
    else:
        friends.user_block(blocker=bob, username="alice")

    expected = InvitationStatus.CANCELLED if blocker == "inviter" else InvitationStatus.DECLINED
    assert invitation_of(game, bob).status == expected
    game.refresh_from_db()
    assert game.status == GameStatus.CANCELLED  # as its creator chose (`on_decline`)
    assert not game.seats.filter(user=bob, joined_at__isnull=False).exists()
    with pytest.raises(GameInvalid):
        invite(alice, bob)


def test_a_block_opens_the_blocked_invitees_seat_when_its_creator_chose_so(alice, bob):
    let_anyone_invite(bob)
    game = invite(alice, bob, on_decline=OnDecline.OPEN_SEAT)
    friends.user_block(blocker=alice, username="bob")

    game.refresh_from_db()
    assert game.status == GameStatus.OPEN
    assert game.seats.get(index=1).is_open


def test_an_invitation_is_not_accepted_across_a_block_that_raced_it(alice, bob):
    # A block recorded while the invitation still waits (the race `seats_part_across_block` and
    # an accept run), in either direction: the accept is refused and changes nothing.
    let_anyone_invite(bob)
    game = invite(alice, bob)
    Block.objects.create(blocker=alice, blocked=bob)

    assert refusal(
        GameInvalid,
        invitations.invitation_accept,
        invitation_id=invitation_of(game, bob).pk,
        user=bob,
    ) == ("seat_unavailable", "You cannot take this seat any more.")
    game.refresh_from_db()
    assert (game.status, game.version) == (GameStatus.OPEN, 0)
    assert invitation_of(game, bob).status == InvitationStatus.PENDING


def test_a_block_between_two_guests_of_a_third_player_parts_them(alice, bob, carol):
    let_anyone_invite(alice, bob)
    game = invite(carol, alice, bob, kind="kingscorner", on_decline=OnDecline.OPEN_SEAT)
    invitations.invitation_accept(invitation_id=invitation_of(game, alice).pk, user=alice)
    friends.user_block(blocker=alice, username="bob")

    # bob's seat was only promised, alice's taken: bob's invitation is withdrawn.
    assert invitation_of(game, bob).status == InvitationStatus.CANCELLED
    game.refresh_from_db()
    assert game.status == GameStatus.OPEN
    assert game.seats.get(index=1).user == alice
    assert game.seats.get(index=2).is_open


def test_a_block_opens_the_later_seat_at_an_open_table_both_joined(alice, bob, carol):
    table = services.game_create(
        creator=carol, kind="kingscorner", opponents=[SeatSpec(), SeatSpec(), SeatSpec()]
    )
    services.game_join(game_id=table.pk, user=bob)
    services.game_join(game_id=table.pk, user=alice)
    friends.user_block(blocker=bob, username="alice")

    table.refresh_from_db()
    assert table.status == GameStatus.OPEN
    assert [seat.user for seat in table.seats.order_by("index")] == [carol, bob, None, None]


def test_a_block_leaves_games_in_play_to_be_played_out(alice, bob):
    let_anyone_invite(bob)
    game = invite(alice, bob)
    invitations.invitation_accept(invitation_id=invitation_of(game, bob).pk, user=bob)
    friends.user_block(blocker=bob, username="alice")

    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE


# --- API ---------------------------------------------------------------------------------------


def create(client, seats, **extra):
    return client.post(
        "/api/v1/games/", {"kind": "tictactoe", "seats": seats, **extra}, format="json"
    )


def test_api_refuses_a_stranger(alice, bob, client_for):
    response = create(client_for(alice), [{"user": "bob"}])
    assert response.status_code == 400
    assert response.json() == {
        "code": "bad_seats",
        "detail": "bob only accepts invitations from friends.",
    }


def test_api_lists_incoming_and_outgoing_and_accepts(alice, bob, carol, client_for):
    let_anyone_invite(bob)
    a, b = client_for(alice), client_for(bob)
    created = create(a, [{"user": "bob"}], on_decline="open_seat").json()
    [shown] = created["invitations"]
    assert (shown["user"], shown["status"]) == ("bob", "pending")

    incoming = b.get("/api/v1/invitations/?direction=incoming").json()["results"]
    assert [(i["game"], i["inviter"], i["invitee"], i["direction"]) for i in incoming] == [
        (created["id"], "alice", "bob", "incoming")
    ]
    assert incoming[0]["on_decline"] == "open_seat"
    assert b.get("/api/v1/invitations/?direction=outgoing").json()["results"] == []
    outgoing = a.get("/api/v1/invitations/").json()["results"]
    assert [i["direction"] for i in outgoing] == ["outgoing"]
    assert client_for(carol).get("/api/v1/invitations/").json()["results"] == []
    assert b.get("/api/v1/invitations/?direction=sideways").json()["code"] == "invalid"

    url = f"/api/v1/invitations/{shown['id']}/"
    assert client_for(carol).post(url + "accept/").json()["code"] == "not_found"
    refused = a.post(url + "accept/")
    assert (refused.status_code, refused.json()["code"]) == (403, "not_invitee")

    accepted = b.post(url + "accept/")
    assert accepted.status_code == 200
    assert (accepted.json()["status"], accepted.json()["you"]) == ("active", 1)
    assert accepted.json()["invitations"] == []
    twice = b.post(url + "accept/")
    assert (twice.status_code, twice.json()["code"]) == (400, "invitation_not_pending")
    assert b.get("/api/v1/invitations/").json()["results"] == []


def test_api_decline_and_cancel(alice, bob, client_for):
    let_anyone_invite(bob)
    a, b = client_for(alice), client_for(bob)
    first = create(a, [{"user": "bob"}]).json()
    second = create(a, [{"user": "bob"}], on_decline="open_seat").json()

    declined = b.post(f"/api/v1/invitations/{first['invitations'][0]['id']}/decline/")
    assert declined.status_code == 200
    assert declined.json()["status"] == "cancelled"
    assert declined.json()["invitations"][0]["status"] == "declined"

    url = f"/api/v1/invitations/{second['invitations'][0]['id']}/cancel/"
    assert b.post(url).json()["code"] == "not_inviter"
    withdrawn = a.post(url)
    assert withdrawn.status_code == 200
    assert withdrawn.json()["status"] == "open"
    assert withdrawn.json()["seats"][1]["open"] is True


def test_api_refuses_a_bad_on_decline(alice, bob, client_for):
    let_anyone_invite(bob)
    response = create(client_for(alice), [{"user": "bob"}], on_decline="shrug")
    assert response.status_code == 400
    assert "on_decline" in response.json()["fields"]


def test_the_setting_is_in_me(alice, client_for):
    client = client_for(alice)
    assert client.get("/api/v1/me/").json()["accept_invitations_from_anyone"] is False
    changed = client.patch("/api/v1/me/", {"accept_invitations_from_anyone": True}, format="json")
    assert changed.json()["accept_invitations_from_anyone"] is True
    alice.refresh_from_db()
    assert alice.accept_invitations_from_anyone is True


def test_api_refuses_to_accept_across_a_block_and_documents_it(alice, bob, client_for):
    let_anyone_invite(bob)
    created = create(client_for(alice), [{"user": "bob"}]).json()
    Block.objects.create(blocker=bob, blocked=alice)

    answer = client_for(bob).post(f"/api/v1/invitations/{created['invitations'][0]['id']}/accept/")
    assert answer.status_code == 400
    assert answer.json()["code"] == "seat_unavailable"
    schema = client_for(bob).get("/api/schema/", {"format": "json"}).json()
    refusal = schema["paths"]["/api/v1/invitations/{id}/accept/"]["post"]["responses"]["400"]
    assert "seat_unavailable" in json.dumps(refusal)
