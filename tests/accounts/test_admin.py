"""The read-only admin pages of friend requests, friendships and blocks, and the user's page's
notification preferences (accounts.admin; the rest of the user's page is
greycircle.players.admin's: tests/players/test_admin.py)."""

import pytest

from accounts import friends
from accounts.forms import KIND_LABELS
from accounts.models import Block, FriendRequest, Friendship, User

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


# --- the user's notification preferences ---------------------------------------------------------


def test_the_user_page_shows_every_notification_preference_read_only(admin_client, alice):
    # Every other preference flipped from its default, so that each cell is seen to be read.
    flipped = User.NOTIFICATION_PREFERENCES[::2]
    User.objects.filter(pk=alice.pk).update(
        **{name: not User._meta.get_field(name).default for name in flipped}
    )
    alice.refresh_from_db()

    response = admin_client.get(f"/admin/accounts/user/{alice.pk}/change/")

    assert response.status_code == 200
    content = response.content.decode()
    assert "Notification preferences" in content
    for name in User.NOTIFICATION_PREFERENCES:
        shown = "on" if getattr(alice, name) else "off"
        assert f'<td data-preference="{name}">{shown}</td>' in content, name
    for label in KIND_LABELS.values():
        assert f"<td>{label}</td>" in content
    # Rows of kinds never mailed say so in the e-mail column.
    assert '<td data-preference="">—</td>' in content
    assert "<td>No push while I am on the site</td>" in content
    # Only the e-mail preferences are boxes to change; inbox and push are the player's alone.
    form_fields = set(response.context["adminform"].form.fields)
    assert set(User.EMAIL_PREFERENCES) <= form_fields
    assert (
        not {name for name in User.NOTIFICATION_PREFERENCES if name.startswith("inbox_")}
        & form_fields
    )
    assert (
        not {name for name in User.NOTIFICATION_PREFERENCES if name.startswith("push_")}
        & form_fields
    )
