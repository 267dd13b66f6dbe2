"""`/api/v1/me/` and the app sign-in flow through allauth headless."""

import pytest
from rest_framework.test import APIClient

from greycircle.asgi import application
from tests.api.socket_frames import FramesChecked

SIGNUP = "/_allauth/app/v1/auth/signup"
LOGIN = "/_allauth/app/v1/auth/login"


def app_signup(client: APIClient, username: str) -> str:
    response = client.post(
        SIGNUP,
        {
            "username": username,
            "email": f"{username}@example.com",
            "password": "a-long-pass-phrase",
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()["meta"]["session_token"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_an_app_signs_up_reads_me_and_opens_its_stream():
    from asgiref.sync import sync_to_async

    client = APIClient()
    token = await sync_to_async(app_signup)(client, "dana")

    me = await sync_to_async(client.get)("/api/v1/me/", headers={"X-Session-Token": token})
    assert me.status_code == 200
    assert me.json()["username"] == "dana"
    assert me.json()["show_helpers"] is True

    communicator = FramesChecked(
        application, "/ws/me/", headers=[(b"x-session-token", token.encode())]
    )
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_json_from() == {
        "type": "hello",
        "user": "dana",
        "unread_count": 0,
        "messages_unread_count": 0,
    }
    await communicator.disconnect()


@pytest.mark.django_db
def test_an_app_logs_in_by_email_and_the_token_authenticates(alice):
    client = APIClient()
    response = client.post(
        LOGIN, {"email": "alice@example.com", "password": "correct-horse-battery"}, format="json"
    )
    assert response.status_code == 200, response.content
    token = response.json()["meta"]["session_token"]
    me = APIClient().get("/api/v1/me/", headers={"X-Session-Token": token})
    assert me.json()["username"] == "alice"


@pytest.mark.django_db
def test_an_unknown_session_token_is_rejected_with_401():
    response = APIClient().get("/api/v1/me/", headers={"X-Session-Token": "not-a-token"})
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
    assert response.headers["WWW-Authenticate"] == "X-Session-Token"


@pytest.mark.django_db
def test_anonymous_requests_get_the_error_shape():
    response = APIClient().get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.django_db
def test_settings_change_through_the_api(alice, client_for):
    client = client_for(alice)
    response = client.patch(
        "/api/v1/me/",
        {"show_helpers": False, "email_your_turn": True, "username": "mallory"},
        format="json",
    )
    assert response.status_code == 200
    alice.refresh_from_db()
    assert alice.show_helpers is False
    assert alice.email_your_turn is True
    assert alice.username == "alice", "the username is read-only here"


@pytest.mark.django_db
def test_confirm_moves_is_off_until_the_player_turns_it_on(alice, client_for):
    client = client_for(alice)
    assert client.get("/api/v1/me/").json()["confirm_moves"] is False
    response = client.patch("/api/v1/me/", {"confirm_moves": True}, format="json")
    assert response.json()["confirm_moves"] is True
    alice.refresh_from_db()
    assert alice.confirm_moves is True


@pytest.mark.django_db
def test_the_session_cookie_needs_csrf_for_writes(alice):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get("/api/v1/me/").status_code == 200
    response = client.patch("/api/v1/me/", {"show_helpers": False}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    alice.refresh_from_db()
    assert alice.show_helpers is True


@pytest.mark.django_db
def test_usernames_are_unique_whatever_their_case(alice):
    response = APIClient().post(
        SIGNUP,
        {"username": "ALICE", "email": "other@example.com", "password": "a-long-pass-phrase"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["param"] == "username"


# --- A guest, and an app deleting its account (the rest of deletion and my data:
# tests/players/test_api.py) ----------------------------------------------------------------


@pytest.mark.django_db
def test_me_tells_a_guest_apart(alice, client_for):
    from accounts.guests import guest_create

    assert client_for(alice).get("/api/v1/me/").json()["is_guest"] is False
    assert client_for(guest_create()).get("/api/v1/me/").json()["is_guest"] is True


@pytest.mark.django_db
def test_an_app_deletes_its_account_and_its_token_ends():
    client = APIClient()
    token = app_signup(client, "dana")
    headers = {"X-Session-Token": token}

    response = client.delete(
        "/api/v1/me/", {"password": "a-long-pass-phrase"}, format="json", headers=headers
    )

    assert response.status_code == 204
    assert client.get("/api/v1/me/", headers=headers).status_code == 401
    login = APIClient().post(
        LOGIN, {"username": "dana", "password": "a-long-pass-phrase"}, format="json"
    )
    assert login.status_code == 400
