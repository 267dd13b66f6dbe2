"""`/api/v1/conversations/`: starting one with a friend, its messages, reading, the refusals."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from greycircle.conversations import services
from greycircle.notifications import mail
from greycircle.notifications.models import Notification
from tests.api.openapi_responses import ResponseValidator
from tests.factories import befriend
from tests.notifications.conftest import verify

pytestmark = pytest.mark.django_db

URL = "/api/v1/conversations/"


@pytest.fixture(scope="module")
def schema_checked() -> ResponseValidator:
    return ResponseValidator(SchemaGenerator().get_schema(request=None, public=True))


@pytest.fixture
def friends_talking(alice, bob, client_for, schema_checked):
    """alice's and bob's API clients (friends), whose every answer must match the schema."""
    befriend(alice, bob)
    clients = client_for(alice), client_for(bob)
    for client in clients:
        _check_answers(client, schema_checked)
    return clients


def _check_answers(client, validator: ResponseValidator) -> None:
    request = client.request

    def checked(**kwargs):
        response = request(**kwargs)
        path = kwargs["PATH_INFO"]
        if path.startswith("/api/v1/") and response.content:
            method = kwargs["REQUEST_METHOD"]
            status = response.status_code
            validator.validate(method=method, path=path, status=status, body=response.json())
        return response

    client.request = checked


def test_start_send_list_and_read(alice, bob, friends_talking):
    as_alice, as_bob = friends_talking
    started = as_alice.post(URL, {"username": "bob"})
    assert started.status_code == 201
    conversation = started.json()
    assert conversation["with_user"] == "bob"
    assert conversation["last_message"] is None
    assert as_bob.post(URL, {"username": "alice"}).json()["id"] == conversation["id"]

    messages_url = f"{URL}{conversation['id']}/messages/"
    sent = as_alice.post(messages_url, {"body": "  <b>good   game</b>  "})
    assert sent.status_code == 201
    first = sent.json()
    assert first["body"] == "<b>good game</b>"  # one normal form, markup kept as text
    assert first["sender"] == "alice"
    second = as_alice.post(messages_url, {"body": "again?"}).json()

    listed = as_bob.get(URL).json()
    assert listed["count"] == 1
    assert listed["messages_unread_count"] == 2
    assert listed["results"][0]["unread_count"] == 2
    assert listed["results"][0]["last_message"]["id"] == second["id"]
    page = as_bob.get(messages_url).json()
    assert [m["id"] for m in page["results"]] == [second["id"], first["id"]]  # newest first
    since = as_bob.get(messages_url, {"after": first["id"]}).json()
    assert [m["id"] for m in since["results"]] == [second["id"]]

    read = as_bob.post(f"{URL}{conversation['id']}/read/", {"up_to": first["id"]})
    assert read.json() == {"unread_count": 1, "messages_unread_count": 1}
    read = as_bob.post(f"{URL}{conversation['id']}/read/", {})
    assert read.json() == {"unread_count": 0, "messages_unread_count": 0}


def test_refusals_have_the_error_shape_and_change_nothing(alice, bob, carol, client_for):
    as_alice = client_for(alice)
    response = as_alice.post(URL, {"username": "bob"})
    assert response.status_code == 403
    assert response.json()["code"] == "not_friends"
    befriend(alice, bob)
    conversation = services.conversation_start(user=alice, username="bob")
    messages_url = f"{URL}{conversation.pk}/messages/"

    response = client_for(carol).get(messages_url)
    assert (response.status_code, response.json()["code"]) == (404, "conversation_not_found")
    response = as_alice.post(messages_url, {"body": "x" * 501})
    assert (response.status_code, response.json()["code"]) == (400, "message_too_long")
    assert not conversation.messages.exists()


def test_too_fast_answers_429_with_retry_after(alice, bob, friends_talking, rate_window_still):
    as_alice, _ = friends_talking
    conversation = services.conversation_start(user=alice, username="bob")
    messages_url = f"{URL}{conversation.pk}/messages/"
    for number in range(5):
        assert as_alice.post(messages_url, {"body": str(number)}).status_code == 201
    response = as_alice.post(messages_url, {"body": "one more"})
    assert response.status_code == 429
    assert response.json()["code"] == "too_many_messages"
    assert int(response["Retry-After"]) > 0


def test_the_recipient_is_notified_once_per_conversation_until_they_read_it(
    alice, bob, friends_talking, deliver_notifications
):
    as_alice, as_bob = friends_talking
    conversation = as_alice.post(URL, {"username": "bob"}).json()
    for body in ("one", "two", "three"):
        as_alice.post(f"{URL}{conversation['id']}/messages/", {"body": body})
    deliver_notifications()
    kept = Notification.objects.get(recipient=bob, kind="message")
    assert (kept.kind, kept.text, kept.link) == (
        "message",
        "alice sent you a message",
        "/messages/alice/",
    )
    assert not Notification.objects.filter(recipient=alice, kind="message").exists()

    as_bob.post(f"{URL}{conversation['id']}/read/", {})
    kept.refresh_from_db()
    assert kept.read
    as_alice.post(f"{URL}{conversation['id']}/messages/", {"body": "four"})
    deliver_notifications()
    assert Notification.objects.filter(recipient=bob, kind="message", read=False).count() == 1


def test_a_message_is_mailed_to_who_asks_without_its_text(
    alice, bob, friends_talking, deliver_notifications, mailoutbox
):
    verify(bob)
    bob.email_message = True
    bob.save(update_fields=["email_message"])
    as_alice, _ = friends_talking
    conversation = as_alice.post(URL, {"username": "bob"}).json()
    as_alice.post(f"{URL}{conversation['id']}/messages/", {"body": "the secret plan"})
    deliver_notifications()
    kept = Notification.objects.get(recipient=bob, kind="message")

    assert mail.notification_mail_deliver(notification_id=kept.pk)
    [message] = mailoutbox
    assert message.subject == "alice sent you a message"
    assert "/messages/alice/" in message.body
    assert "secret plan" not in message.body
    assert "secret plan" not in message.alternatives[0][0]


def test_a_message_read_before_the_worker_came_to_it_leaves_no_notification(
    alice, bob, friends_talking, deliver_notifications
):
    as_alice, as_bob = friends_talking
    conversation = as_alice.post(URL, {"username": "bob"}).json()
    as_alice.post(f"{URL}{conversation['id']}/messages/", {"body": "still there?"})
    as_bob.post(f"{URL}{conversation['id']}/read/", {})  # bob has the thread open
    deliver_notifications()
    assert not Notification.objects.filter(recipient=bob, kind="message").exists()
