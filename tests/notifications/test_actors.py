"""Nobody is told of what they did themselves: no inbox entry, no e-mail, nothing on `ws/me/`.

Each change goes the real way, through the API as the site and the apps make it; the worker's
notification tasks run (`deliver_notifications`, then `run_tasks` for the mail). The player who
made the change still follows the game on its socket (`ws/games/`), like everyone else.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts import friends
from greycircle.asgi import application
from greycircle.games.models import Game
from greycircle.notifications.models import Notification
from tests.api.socket_frames import FramesChecked
from tests.factories import accept_invitations, let_anyone_invite
from tests.notifications.conftest import verify

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("tictactoe", "close_thread_connections"),
]

GAMES = "/api/v1/games"


def inbox(user) -> list[str]:
    return list(Notification.objects.filter(recipient=user).values_list("text", flat=True))


def play(client, game_id: int, cell: int) -> dict:
    version = client.get(f"{GAMES}/{game_id}/").json()["version"]
    response = client.post(
        f"{GAMES}/{game_id}/moves/",
        {"expected_version": version, "move": {"cell": cell}},
        format="json",
    )
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.fixture
def told(deliver_notifications, run_tasks, mailoutbox):
    """What each player was told since the last call: their inbox and their mail (subjects),
    once the worker has kept the notifications and sent the mail. Both start empty again."""

    def read(*users) -> dict[str, tuple[list[str], list[str]]]:
        deliver_notifications()
        run_tasks()
        news = {
            user.username: (
                inbox(user),
                [message.subject for message in mailoutbox if message.to == [user.email]],
            )
            for user in users
        }
        Notification.objects.all().delete()
        mailoutbox.clear()
        return news

    return read


@pytest.fixture
def game(alice, bob, client_for, told):
    """alice (X, to move) against bob, in play; both opted into every mail, nothing told yet."""
    verify(alice, bob)
    for user in (alice, bob):
        user.email_game_invitation = user.email_your_turn = user.email_game_over = True
        user.save()
    let_anyone_invite(bob)
    created = client_for(alice).post(
        f"{GAMES}/", {"kind": "tictactoe", "seats": [{"user": "bob"}]}, format="json"
    )
    assert created.status_code == 201, created.json()
    accept_invitations(created.json()["id"])
    told(alice, bob)
    return created.json()["id"]


NOTHING = ([], [])


def test_resigning_tells_the_opponent_only(game, alice, bob, client_for, told):
    assert client_for(bob).post(f"{GAMES}/{game}/resign/").status_code == 200

    won = "You won against bob at Tic-tac-toe: bob resigned"
    assert told(alice, bob) == {"alice": ([won], [won]), "bob": NOTHING}


def test_the_winning_move_tells_the_loser_only(game, alice, bob, client_for, told):
    a, b = client_for(alice), client_for(bob)
    for client, cell in [(a, 0), (b, 3), (a, 1), (b, 4)]:
        play(client, game, cell)
    told(alice, bob)  # the turns so far

    play(a, game, 2)

    lost = "You lost to alice at Tic-tac-toe"
    assert told(alice, bob) == {"alice": NOTHING, "bob": ([lost], [lost])}


def test_claiming_a_win_on_time_tells_the_late_player_only(game, alice, bob, client_for, told):
    Game.objects.filter(pk=game).update(move_deadline=timezone.now() - timedelta(seconds=1))

    assert client_for(bob).post(f"{GAMES}/{game}/claim/").status_code == 200

    lost = "You lost to bob at Tic-tac-toe"
    assert told(alice, bob) == {"alice": ([lost], [lost]), "bob": NOTHING}


def test_a_rematch_invites_the_other_player_not_its_asker(game, alice, bob, client_for, told):
    client_for(bob).post(f"{GAMES}/{game}/resign/")
    told(alice, bob)

    # alice asks; the seats turn, so bob holds the first seat of the rematch.
    rematch = client_for(alice).post(f"{GAMES}/{game}/rematch/").json()
    assert [seat["user"] for seat in rematch["seats"]] == ["bob", "alice"]

    invited = "alice invites you to play Tic-tac-toe"
    assert told(alice, bob) == {"alice": NOTHING, "bob": ([invited], [invited])}


def test_accepting_tells_the_inviter_not_the_player_who_accepted(
    game, alice, bob, client_for, told
):
    client_for(bob).post(f"{GAMES}/{game}/resign/")
    rematch = client_for(alice).post(f"{GAMES}/{game}/rematch/").json()
    told(alice, bob)

    # bob accepts and, in the rematch's first seat, is to move: he knows, he is on its page.
    [invitation] = rematch["invitations"]
    accepted = client_for(bob).post(f"/api/v1/invitations/{invitation['id']}/accept/").json()
    assert (accepted["status"], accepted["to_move"], accepted["you"]) == ("active", 0, 0)

    answered = "bob accepted your invitation to play Tic-tac-toe"
    assert told(alice, bob) == {"alice": ([answered], []), "bob": NOTHING}


def test_declining_tells_the_inviter_only(alice, bob, client_for, told):
    let_anyone_invite(bob)
    created = (
        client_for(alice)
        .post(f"{GAMES}/", {"kind": "tictactoe", "seats": [{"user": "bob"}]}, format="json")
        .json()
    )
    told(alice, bob)
    [invitation] = created["invitations"]

    client_for(bob).post(f"/api/v1/invitations/{invitation['id']}/decline/")

    declined = "bob declined your invitation to play Tic-tac-toe"
    assert told(alice, bob) == {"alice": ([declined], []), "bob": NOTHING}


def signed_in_cookie(client) -> bytes:
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def connect(path: str, cookie: bytes) -> tuple[WebsocketCommunicator, dict]:
    socket = FramesChecked(
        application, path, headers=[(b"origin", b"http://testserver"), (b"cookie", cookie)]
    )
    assert (await socket.connect())[0]
    return socket, await socket.receive_json_from()


async def test_the_actor_still_follows_the_game_but_hears_nothing_on_their_stream(
    game, alice, bob, carol, client_for, deliver_notifications
):
    client = await sync_to_async(client_for)(bob)
    cookie = signed_in_cookie(client)
    game_socket, _ = await connect(f"/ws/games/{game}/", cookie)
    stream, _ = await connect("/ws/me/", cookie)

    resigned = await sync_to_async(client.post)(f"{GAMES}/{game}/resign/")
    await sync_to_async(deliver_notifications)()

    frame = await game_socket.receive_json_from(timeout=5)
    assert frame["envelope"]["version"] == resigned.json()["version"]
    assert frame["envelope"]["status"] == "finished"
    # The next thing on bob's stream is what carol does next, not his own resignation.
    await sync_to_async(friends.friend_request_send)(sender=carol, username="bob")
    await sync_to_async(deliver_notifications)()
    heard = await stream.receive_json_from(timeout=5)
    assert heard["notification"]["event"] == "friend_request"
    await game_socket.disconnect()
    await stream.disconnect()
