"""Staff see every message in the admin, hidden ones too, and review them."""

from __future__ import annotations

import pytest

from greycircle.conversations import selectors, services
from tests.factories import befriend

pytestmark = pytest.mark.django_db

ABUSE = "you are a piece of shit"


def test_staff_see_a_hidden_message_and_showing_it_reaches_the_recipient(alice, bob, admin_client):
    befriend(alice, bob)
    conversation = services.conversation_start(user=alice, username="bob")
    message = services.direct_message_send(user=alice, conversation_id=conversation.pk, body=ABUSE)
    listed = admin_client.get("/admin/conversations/directmessage/?review=waiting")
    assert ABUSE in listed.content.decode()

    response = admin_client.post(
        "/admin/conversations/directmessage/",
        {"action": "review_show", "_selected_action": [message.pk]},
    )
    assert response.status_code == 302
    message.refresh_from_db()
    assert (message.hidden, message.reviewed_at is not None) == (False, True)
    assert [m.pk for m in selectors.messages_for(user=bob, conversation=conversation)] == [
        message.pk
    ]
    assert selectors.messages_unread_count(user=bob) == 1
