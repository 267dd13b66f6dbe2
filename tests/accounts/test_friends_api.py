"""`/api/v1/friends/`, `/api/v1/friends/requests/` and `/api/v1/blocks/`."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from accounts import friends
from accounts.models import Block, FriendRequest
from greycircle.asgi import application
from tests.api.socket_frames import FramesChecked
from tests.factories import UserFactory

REQUESTS = "/api/v1/friends/requests/"


def ask(client: APIClient, username: str):
    return client.post(REQUESTS, {"username": username})


@pytest.mark.django_db
def test_a_request_is_sent_listed_both_ways_and_accepted(alice, bob, client_for):
    as_alice, as_bob = client_for(alice), client_for(bob)

    sent = ask(as_alice, "BOB")
    assert sent.status_code == 201, sent.content
    body = sent.json()
    assert body["status"] == "requested"
    assert body["friend"] is None
    request = body["request"]
    assert request["direction"] == "outgoing"
    assert request["from_user"] == {"id": alice.pk, "username": "alice"}
    assert request["to_user"] == {"id": bob.pk, "username": "bob"}

    incoming = as_bob.get(REQUESTS, {"direction": "incoming"}).json()
    assert [(r["id"], r["direction"]) for r in incoming["results"]] == [(request["id"], "incoming")]
    assert as_bob.get(REQUESTS, {"direction": "outgoing"}).json()["results"] == []
    assert [r["id"] for r in as_alice.get(REQUESTS).json()["results"]] == [request["id"]]

    accepted = as_bob.post(f"{REQUESTS}{request['id']}/accept/")
    assert accepted.status_code == 200, accepted.content
    assert accepted.json()["user"] == {"id": alice.pk, "username": "alice"}
    assert "since" in accepted.json()

    mine = as_alice.get("/api/v1/friends/").json()
    assert mine["count"] == 1
    assert mine["results"][0]["user"] == {"id": bob.pk, "username": "bob"}
    assert as_bob.get(REQUESTS).json()["results"] == []


@pytest.mark.django_db
def test_asking_someone_who_asked_you_makes_you_friends(alice, bob, client_for):
    ask(client_for(alice), "bob")
    response = ask(client_for(bob), "alice")
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "friends"
    assert body["request"] is None
    assert body["friend"]["user"]["username"] == "alice"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "status", "code"),
    [
        ("alice", 400, "cannot_befriend_yourself"),
        ("nobody", 404, "user_not_found"),
    ],
)
def test_request_refusals(alice, client_for, username, status, code):
    response = ask(client_for(alice), username)
    assert response.status_code == status
    assert response.json()["code"] == code


@pytest.mark.django_db
def test_a_duplicate_request_and_a_request_to_a_friend_are_refused(alice, bob, carol, client_for):
    as_alice = client_for(alice)
    ask(as_alice, "bob")
    assert ask(as_alice, "bob").json()["code"] == "already_requested"
    ask(as_alice, "carol")
    client_for(carol).post(f"{REQUESTS}{FriendRequest.objects.get(to_user=carol).pk}/accept/")
    response = ask(as_alice, "carol")
    assert (response.status_code, response.json()["code"]) == (400, "already_friends")


@pytest.mark.django_db
def test_an_over_long_username_is_invalid_without_being_echoed(alice, client_for):
    response = ask(client_for(alice), "x" * 5000)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "xxxxxxxxxx" not in response.content.decode()


@pytest.mark.django_db
def test_only_the_recipient_answers_and_only_the_sender_cancels(alice, bob, carol, client_for):
    as_alice, as_bob, as_carol = client_for(alice), client_for(bob), client_for(carol)
    request_id = ask(as_alice, "bob").json()["request"]["id"]
    for verb in ("accept", "decline"):
        response = as_alice.post(f"{REQUESTS}{request_id}/{verb}/")
        assert (response.status_code, response.json()["code"]) == (403, "not_recipient")
    response = as_bob.post(f"{REQUESTS}{request_id}/cancel/")
    assert (response.status_code, response.json()["code"]) == (403, "not_sender")
    for verb in ("accept", "decline", "cancel"):
        response = as_carol.post(f"{REQUESTS}{request_id}/{verb}/")
        assert (response.status_code, response.json()["code"]) == (404, "not_found")

    assert as_alice.post(f"{REQUESTS}{request_id}/cancel/").status_code == 204
    assert not FriendRequest.objects.exists()


@pytest.mark.django_db
def test_declining_deletes_the_request(alice, bob, client_for):
    request_id = ask(client_for(alice), "bob").json()["request"]["id"]
    assert client_for(bob).post(f"{REQUESTS}{request_id}/decline/").status_code == 204
    assert client_for(alice).get(REQUESTS).json()["results"] == []


@pytest.mark.django_db
def test_removing_a_friend(alice, bob, client_for):
    request_id = ask(client_for(alice), "bob").json()["request"]["id"]
    client_for(bob).post(f"{REQUESTS}{request_id}/accept/")
    assert client_for(bob).delete(f"/api/v1/friends/{alice.pk}/").status_code == 204
    assert client_for(alice).get("/api/v1/friends/").json()["results"] == []
    response = client_for(bob).delete(f"/api/v1/friends/{alice.pk}/")
    assert (response.status_code, response.json()["code"]) == (404, "not_friends")


@pytest.mark.django_db
def test_blocking_through_the_api(alice, bob, client_for):
    as_alice, as_bob = client_for(alice), client_for(bob)
    request_id = ask(as_bob, "alice").json()["request"]["id"]

    blocked = as_alice.post("/api/v1/blocks/", {"username": "bob"})
    assert blocked.status_code == 201, blocked.content
    assert blocked.json()["user"] == {"id": bob.pk, "username": "bob"}
    assert not FriendRequest.objects.filter(pk=request_id).exists()
    assert [b["user"]["username"] for b in as_alice.get("/api/v1/blocks/").json()["results"]] == [
        "bob"
    ]
    assert as_bob.get("/api/v1/blocks/").json()["results"] == []

    refused = ask(as_bob, "alice")
    assert (refused.status_code, refused.json()["code"]) == (403, "friend_request_refused")
    again = as_alice.post("/api/v1/blocks/", {"username": "bob"})
    assert (again.status_code, again.json()["code"]) == (400, "already_blocked")
    yourself = as_alice.post("/api/v1/blocks/", {"username": "alice"})
    assert yourself.json()["code"] == "cannot_block_yourself"

    assert as_alice.delete(f"/api/v1/blocks/{bob.pk}/").status_code == 204
    assert not Block.objects.exists()
    gone = as_alice.delete(f"/api/v1/blocks/{bob.pk}/")
    assert (gone.status_code, gone.json()["code"]) == (404, "not_blocked")


@pytest.mark.django_db
def test_too_many_requests_answer_429(alice, client_for, monkeypatch):
    monkeypatch.setattr(friends, "FRIEND_REQUEST_LIMIT", 1)
    client = client_for(alice)
    ask(client, "nobody")
    response = ask(client, "nobody")
    assert response.status_code == 429
    assert response.json()["code"] == "too_many_friend_requests"


@pytest.mark.django_db
def test_friends_and_blocks_need_a_signed_in_user():
    client = APIClient()
    for url in ("/api/v1/friends/", REQUESTS, "/api/v1/blocks/"):
        assert client.get(url).status_code == 401


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_the_recipient_hears_of_the_request_and_the_sender_of_the_answer_live(
    deliver_notifications,
):
    def signed_in(username: str) -> tuple[APIClient, bytes]:
        client = APIClient()
        client.force_login(UserFactory(username=username))
        return client, f"sessionid={client.cookies['sessionid'].value}".encode()

    async def stream(cookie: bytes) -> WebsocketCommunicator:
        socket = FramesChecked(
            application, "/ws/me/", headers=[(b"origin", b"http://testserver"), (b"cookie", cookie)]
        )
        assert (await socket.connect())[0]
        assert (await socket.receive_json_from())["type"] == "hello"
        return socket

    (as_dana, dana_cookie), (as_erin, erin_cookie) = [
        await sync_to_async(signed_in)(name) for name in ("dana", "erin")
    ]
    dana, erin = await stream(dana_cookie), await stream(erin_cookie)

    sent = await sync_to_async(ask)(as_dana, "erin")
    request_id = sent.json()["request"]["id"]
    await sync_to_async(deliver_notifications)()  # the task worker's part: from the outbox
    heard = await erin.receive_json_from()
    assert heard["type"] == "notification"
    assert heard["notification"] == {"event": "friend_request", "request": request_id, "by": "dana"}
    assert await dana.receive_nothing(timeout=0.1)

    await sync_to_async(as_erin.post)(f"{REQUESTS}{request_id}/accept/")
    await sync_to_async(deliver_notifications)()
    heard = await dana.receive_json_from()
    assert heard["notification"]["event"] == "friend_accepted"
    assert heard["notification"]["by"] == "erin"
    await dana.disconnect()
    await erin.disconnect()
