"""The read-only admin pages of friend requests, friendships and blocks (accounts.admin; the
user's page is greycircle.players.admin's: tests/players/test_admin.py)."""

import pytest

from accounts import friends
from accounts.models import Block, FriendRequest, Friendship

pytestmark = pytest.mark.django_db


# --- friend requests, friendships, blocks: searchable, read-only --------------------------------


def test_staff_search_friendships_requests_and_blocks_but_cannot_change_them(
    admin_client, alice, bob, carol
):
    friends.friend_request_accept(
        user=bob, request_id=friends.friend_request_send(sender=alice, username="bob").request.pk
    )
    friends.friend_request_send(sender=carol, username="alice")
    friends.user_block(blocker=carol, username="bob")

    for path, query, count in [
        ("/admin/accounts/friendship/", "alice", 2),
        ("/admin/accounts/friendrequest/", "carol", 1),
        ("/admin/accounts/block/", "bob", 1),
        ("/admin/accounts/block/", "nobody", 0),
    ]:
        response = admin_client.get(path, {"q": query})
        assert response.status_code == 200
        assert len(response.context["cl"].result_list) == count
        assert response.context["action_form"] is None  # no delete, no other action
    for model, path in [
        (Friendship, "/admin/accounts/friendship/"),
        (FriendRequest, "/admin/accounts/friendrequest/"),
        (Block, "/admin/accounts/block/"),
    ]:
        row = model.objects.first()
        assert admin_client.get(f"{path}add/").status_code == 403
        assert admin_client.post(f"{path}{row.pk}/delete/", {"post": "yes"}).status_code == 403
        assert admin_client.post(f"{path}{row.pk}/change/", {}).status_code == 403
    assert (Friendship.objects.count(), FriendRequest.objects.count(), Block.objects.count()) == (
        2,
        1,
        1,
    )
