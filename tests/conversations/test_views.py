"""The pages of messages: the list, a thread (escaped, links only between friends, read when
opened), the plain forms, and the navigation's unread badge."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import friends
from greycircle.conversations import selectors, services
from tests.factories import befriend

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def talking(alice, bob):
    befriend(alice, bob)
    return services.conversation_start(user=alice, username="bob")


def badge(html: str) -> str:
    start = html.index('id="messages-badge"')
    return html[start : html.index("</a>", start)]


def test_a_thread_shows_messages_as_text_and_is_read_once_opened(alice, bob, talking):
    services.direct_message_send(
        user=alice,
        conversation_id=talking.pk,
        body="<img src=x onerror=alert(1)> see https://example.com/x",
    )
    as_bob = signed_in(bob)
    assert 'data-count="1"' in badge(as_bob.get("/friends/").content.decode())

    html = as_bob.get("/messages/alice/").content.decode()
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert '<a href="https://example.com/x" rel="nofollow">' in html
    assert selectors.messages_unread_count(user=bob) == 0
    assert 'data-count="0"' in badge(as_bob.get("/messages/").content.decode())
    # The other person's messages can be reported (frontend/js/report.js); one's own cannot.
    message = talking.messages.get()
    assert f'data-report-direct-message="{message.pk}"' in html
    mine = signed_in(alice).get("/messages/bob/").content.decode()
    assert "data-report-direct-message" not in mine


def test_links_are_not_clickable_once_no_longer_friends(alice, bob, talking):
    services.direct_message_send(
        user=alice, conversation_id=talking.pk, body="https://example.com/x"
    )
    friends.friend_remove(user=bob, friend_id=alice.pk)
    html = signed_in(bob).get("/messages/alice/").content.decode()
    assert "https://example.com/x" in html
    assert '<a href="https://example.com/x"' not in html
    assert 'id="thread-form"' not in html


def test_the_forms_start_a_conversation_and_send(alice, bob):
    befriend(alice, bob)
    as_alice = signed_in(alice)
    assert 'value="bob"' in as_alice.get("/messages/").content.decode()  # a friend to message
    response = as_alice.post("/messages/", {"username": "bob"})
    assert response.headers["Location"] == "/messages/bob/"
    as_alice.post("/messages/bob/", {"body": "hello bob"})
    conversation = selectors.conversation_between(user=alice, other=bob)
    assert [m.body for m in conversation.messages.all()] == ["hello bob"]
    listed = signed_in(bob).get("/messages/").content.decode()
    assert 'href="/messages/alice/"' in listed
    assert "hello bob" in listed


def test_a_stranger_has_no_thread_to_open(alice, carol):
    response = signed_in(carol).get("/messages/alice/", follow=True)
    assert "You can message only your friends" in response.content.decode()
    assert signed_in(carol).get("/messages/nobody/").status_code == 404
