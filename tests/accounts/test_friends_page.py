"""The /friends/ page: plain forms posting to views that call the friends services."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import friends, guests, selectors
from accounts.models import FriendRequest, Friendship, User
from tests.factories import UserFactory


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


@pytest.mark.django_db
def test_the_page_needs_a_signed_in_user(client):
    response = client.get("/friends/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


@pytest.mark.django_db
def test_send_a_request_by_username_and_the_other_accepts_it(alice, bob):
    as_alice, as_bob = signed_in(alice), signed_in(bob)

    response = as_alice.post("/friends/request/", {"username": "Bob"}, follow=True)
    assert response.redirect_chain == [("/friends/", 302)]
    assert messages_of(response) == ["Friend request sent to bob."]
    assert 'data-section="outgoing"' in response.content.decode()
    assert [r.to_user for r in response.context["outgoing"]] == [bob]

    page = as_bob.get("/friends/")
    request = FriendRequest.objects.get()
    assert f'action="/friends/requests/{request.pk}/accept/"' in page.content.decode()

    response = as_bob.post(f"/friends/requests/{request.pk}/accept/", follow=True)
    assert messages_of(response) == ["Friend request accepted."]
    assert [f.friend for f in response.context["friends"]] == [alice]
    assert selectors.are_friends(user=alice, other=bob)


@pytest.mark.django_db
def test_refusals_are_shown_as_messages(alice, bob):
    as_alice = signed_in(alice)
    assert messages_of(as_alice.post("/friends/request/", {"username": "alice"}, follow=True)) == [
        "You cannot befriend yourself."
    ]
    shown = messages_of(as_alice.post("/friends/request/", {"username": "z" * 140}, follow=True))
    assert shown[0].startswith("No player is called zzz")
    assert len(shown[0]) < 80
    assert messages_of(as_alice.post("/friends/request/", {"username": ""}, follow=True)) == [
        "Type a username (at most 150 characters)."
    ]


@pytest.mark.django_db
def test_decline_cancel_and_remove(alice, bob, carol):
    declined = friends.friend_request_send(sender=alice, username="bob").request
    cancelled = friends.friend_request_send(sender=alice, username="carol").request
    as_alice, as_bob = signed_in(alice), signed_in(bob)

    # Only the recipient declines; only the sender cancels.
    wrong = as_alice.post(f"/friends/requests/{declined.pk}/decline/", follow=True)
    assert messages_of(wrong) == ["Only the person asked can decline a friend request."]
    assert messages_of(as_bob.post(f"/friends/requests/{declined.pk}/decline/", follow=True)) == [
        "Friend request declined."
    ]
    as_alice.post(f"/friends/requests/{cancelled.pk}/cancel/")
    assert not FriendRequest.objects.exists()
    assert as_alice.post(f"/friends/requests/{cancelled.pk}/shrug/").status_code == 404

    again = friends.friend_request_send(sender=alice, username="bob").request
    friends.friend_request_accept(user=bob, request_id=again.pk)
    response = as_bob.post(f"/friends/{alice.pk}/remove/", follow=True)
    assert messages_of(response) == ["Friend removed."]
    assert not selectors.are_friends(user=alice, other=bob)


@pytest.mark.django_db
def test_block_and_unblock_from_the_page(alice, bob):
    friends.friend_request_send(sender=bob, username="alice")
    as_alice = signed_in(alice)

    response = as_alice.post("/friends/block/", {"username": "bob"}, follow=True)
    assert messages_of(response) == ["You blocked bob."]
    assert [b.blocked for b in response.context["blocks"]] == [bob]
    assert list(response.context["incoming"]) == []
    assert f'action="/friends/blocked/{bob.pk}/unblock/"' in response.content.decode()

    refused = signed_in(bob).post("/friends/request/", {"username": "alice"}, follow=True)
    assert messages_of(refused) == ["You cannot send alice a friend request."]

    response = as_alice.post(f"/friends/blocked/{bob.pk}/unblock/", follow=True)
    assert messages_of(response) == ["Unblocked."]
    assert not selectors.is_blocked_between(a=alice, b=bob)


@pytest.mark.django_db
def test_actions_are_post_only(alice):
    as_alice = signed_in(alice)
    assert as_alice.get("/friends/request/").status_code == 405
    assert as_alice.get("/friends/block/").status_code == 405


@pytest.fixture
def staff_client():
    client = Client()
    client.force_login(UserFactory(username="staffer", is_staff=True, is_superuser=True))
    return client


@pytest.mark.django_db
def test_staff_search_friendships_requests_and_blocks(staff_client, alice, bob, carol):
    friends.friend_request_accept(
        user=bob, request_id=friends.friend_request_send(sender=alice, username="bob").request.pk
    )
    friends.friend_request_send(sender=carol, username="alice")
    friends.user_block(blocker=carol, username="bob")

    found = staff_client.get("/admin/accounts/friendship/", {"q": "bob"})
    assert found.status_code == 200
    assert {(f.user.username, f.friend.username) for f in found.context["cl"].result_list} == {
        ("alice", "bob"),
        ("bob", "alice"),
    }
    requests = staff_client.get("/admin/accounts/friendrequest/", {"q": "carol"})
    assert [str(r) for r in requests.context["cl"].result_list] == ["carol → alice"]
    blocks = staff_client.get("/admin/accounts/block/", {"q": "bob"})
    assert [str(b) for b in blocks.context["cl"].result_list] == ["carol blocked bob"]
    assert staff_client.get("/admin/accounts/block/add/").status_code == 403


@pytest.mark.django_db
def test_staff_cannot_delete_a_friendship(staff_client, alice, bob):
    """Friendships are the players' to end (read-only in the admin, like requests and blocks)."""
    friends.friend_request_accept(
        user=bob, request_id=friends.friend_request_send(sender=alice, username="bob").request.pk
    )
    side = Friendship.objects.get(user=alice)
    staff_client.post(
        "/admin/accounts/friendship/",
        {"action": "delete_selected", "_selected_action": [side.pk], "post": "yes"},
    )
    response = staff_client.post(f"/admin/accounts/friendship/{side.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert Friendship.objects.count() == 2


@pytest.mark.django_db
def test_a_user_with_friends_and_blocks_can_still_be_deleted_by_staff(staff_client, alice, bob):
    friends.friend_request_send(sender=alice, username="bob")
    friends.user_block(blocker=bob, username="alice")
    response = staff_client.post(
        f"/admin/accounts/user/{alice.pk}/delete/", {"post": "yes", "reason": "Spam account"}
    )
    assert response.status_code == 302
    assert not User.objects.filter(pk=alice.pk).exists()


@pytest.mark.django_db
def test_a_guest_is_told_what_an_account_gives_instead_of_the_friends_forms():
    page = signed_in(guests.guest_create()).get("/friends/")

    html = page.content.decode()
    assert "Send friend request" not in html
    assert 'data-section="friends"' not in html
    assert 'data-section="incoming"' not in html
    assert "As a guest you cannot add friends, nor can anyone ask you." in html
    assert 'href="/account/upgrade/">Create an account</a>' in html
    assert 'data-section="blocked"' in html  # a guest may still block


@pytest.mark.django_db
def test_a_full_account_sees_no_guest_note(alice):
    html = signed_in(alice).get("/friends/").content.decode()

    assert "Send friend request" in html
    assert "data-guest-note" not in html
