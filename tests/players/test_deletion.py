"""Deleting my account: confirmed by password, games settled, personal data gone, seats kept."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.test import Client

from accounts import friends, guests
from accounts.errors import AccountInvalid
from accounts.models import Block, FriendRequest, Friendship, User
from greycircle.chat import services as chat
from greycircle.chat.models import GameChatOff, GameMessage
from greycircle.conversations import services as conversations
from greycircle.games import selectors, services
from greycircle.games.models import Game, GameStatus, Invitation, InvitationStatus
from greycircle.games.services import SeatSpec
from greycircle.notifications.models import Notification
from greycircle.players import deletion
from greycircle.ratings.models import PlayerRating
from tests.factories import PASSWORD, UserFactory, befriend, game_started, let_anyone_invite

pytestmark = pytest.mark.django_db


def signed_in(user: User) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def delete_on_site(client: Client, **data):
    page = client.get("/account/delete/")
    assert page.status_code == 200
    token = client.cookies["csrftoken"].value
    return client.post("/account/delete/", {"csrfmiddlewaretoken": token, **data})


def test_a_wrong_password_changes_nothing(alice, bob):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    with pytest.raises(AccountInvalid) as refused:
        deletion.account_delete(user=alice, password="not-my-password")
    assert refused.value.code == "wrong_password"

    client = signed_in(alice)
    response = delete_on_site(client, password="not-my-password")
    assert response.status_code == 200
    assert "That is not your password." in response.content.decode()

    alice.refresh_from_db()
    assert (alice.username, alice.is_active, alice.deleted_at) == ("alice", True, None)
    assert Game.objects.get(pk=game.pk).status == GameStatus.ACTIVE
    assert client.get("/settings/").status_code == 200  # still signed in


@pytest.fixture
def dave(db):
    return UserFactory(username="dave")


def test_deleting_settles_games_and_removes_personal_data(alice, bob, carol, dave):
    playing = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    finished = game_started(creator=bob, kind="circles", opponents=[SeatSpec(user=alice)])
    for version, (player, square) in enumerate(
        zip([bob, alice] * 2, ["e3", "d3", "c2", "f2"], strict=True)
    ):
        services.move_submit(
            game_id=finished.pk,
            user=player,
            move={"square": square},
            expected_version=finished.version + version,
        )  # two moves each: a game long enough to be rated
    services.game_resign(game_id=finished.pk, user=bob)
    my_table = services.game_create(creator=alice, kind="circles", opponents=[SeatSpec()])
    let_anyone_invite(alice)
    invited = services.game_create(creator=carol, kind="circles", opponents=[SeatSpec(user=alice)])
    joined = services.game_create(
        creator=dave, kind="kingscorner", opponents=[SeatSpec(), SeatSpec()]
    )
    services.game_join(game_id=joined.pk, user=alice)
    against_computer = game_started(
        creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")]
    )
    services.game_resign(game_id=against_computer.pk, user=alice)
    friends.friend_request_send(sender=alice, username="bob")
    friends.friend_request_accept(user=bob, request_id=FriendRequest.objects.get().pk)
    friends.friend_request_send(sender=alice, username="carol")
    friends.user_block(blocker=dave, username="alice")
    Notification.objects.create(recipient=alice, kind="game_over", text="alice: you won")
    assert PlayerRating.objects.filter(user=alice).exists()  # the finished game was rated
    EmailAddress.objects.create(user=alice, email=alice.email, primary=True, verified=True)

    client = signed_in(alice)
    response = delete_on_site(client, password=PASSWORD)

    assert response.status_code == 302
    assert response["Location"] == "/"
    # Logged out, for good: the old name and password let nobody in.
    assert client.get("/settings/").status_code == 302
    assert not Client().login(username="alice", password=PASSWORD)

    gone = User.objects.get(pk=alice.pk)
    assert gone.username == f"deleted-{alice.pk}"
    assert (gone.email, gone.is_active, gone.has_usable_password()) == ("", False, False)
    assert gone.deleted_at is not None
    assert not EmailAddress.objects.filter(user=gone).exists()
    assert not Friendship.objects.exists()
    assert not FriendRequest.objects.exists()
    assert not Block.objects.exists()
    assert not Notification.objects.filter(recipient=gone).exists()
    assert not PlayerRating.objects.filter(user=gone).exists()

    def game(of: Game) -> Game:
        return Game.objects.with_seats().get(pk=of.pk)

    # The game in play was resigned: the opponent won.
    assert game(playing).status == GameStatus.FINISHED
    assert game(playing).outcome["winners"] == [1]
    assert game(playing).outcome["reason"] == "resignation"
    # My table that had not started was withdrawn; the invitation to me declined (it cancels).
    assert game(my_table).status == GameStatus.CANCELLED
    assert game(invited).status == GameStatus.CANCELLED
    assert Invitation.objects.get(game=invited).status == InvitationStatus.DECLINED
    # The seat I took at dave's table is open again; the table still waits for players.
    assert game(joined).status == GameStatus.OPEN
    assert [seat.is_open for seat in game(joined).seats.all()] == [False, True, True]
    # Finished games stay, my seat shown as "deleted player", to everybody.
    for kept in (finished, against_computer):
        assert game(kept).status == GameStatus.FINISHED
    seat = selectors.seats_json(game=game(finished))[1]
    assert (seat["name"], seat["user"], seat["open"]) == ("deleted player", None, False)
    envelope = selectors.game_view_for(game=game(playing), viewer=bob)
    assert envelope["created_by"] is None
    assert [seat["name"] for seat in envelope["seats"]] == ["deleted player", "bob"]


def test_a_guest_confirms_with_a_tick():
    guest = guests.guest_create()
    client = signed_in(guest)
    page = client.get("/account/delete/").content.decode()
    assert 'type="password"' not in page

    response = delete_on_site(client)
    assert response.status_code == 200
    assert User.objects.get(pk=guest.pk).deleted_at is None

    response = delete_on_site(client, confirm="on")
    assert response.status_code == 302
    assert User.objects.get(pk=guest.pk).deleted_at is not None


def test_the_username_of_a_deleted_account_is_free_again(alice):
    deletion.account_delete(user=alice, password=PASSWORD)
    assert User.objects.get(pk=alice.pk).username == f"deleted-{alice.pk}"
    assert UserFactory(username="alice").pk != alice.pk


def test_deleting_removes_my_messages_and_keeps_my_friends_words(alice, bob):
    befriend(alice, bob)
    conversation = conversations.conversation_start(user=alice, username="bob")
    conversations.direct_message_send(user=alice, conversation_id=conversation.pk, body="mine")
    conversations.direct_message_send(user=bob, conversation_id=conversation.pk, body="theirs")
    deletion.account_delete(user=alice, password=PASSWORD)
    assert [m.body for m in conversation.messages.all()] == ["theirs"]


def test_deleting_removes_what_i_wrote_in_games_chats(alice, bob):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    chat.game_message_post(user=alice, game_id=game.pk, room="players", body="mine")
    chat.game_message_post(user=bob, game_id=game.pk, room="players", body="theirs")
    chat.game_chat_switch(user=alice, game_id=game.pk, on=False)
    deletion.account_delete(user=alice, password=PASSWORD)
    assert [m.body for m in GameMessage.objects.filter(game=game)] == ["theirs"]
    assert not GameChatOff.objects.filter(user=alice).exists()
