"""The shared read-only admin classes: nothing can be added, changed or deleted, and the records
about a game link to it without reading its state."""

import pytest
from django.contrib import admin
from django.test import RequestFactory

from accounts.models import Block, FriendRequest, Friendship
from greycircle.admin_base import GameRecordAdmin, ReadOnlyAdmin
from greycircle.games.models import Game, Invitation
from greycircle.moderation.models import ModerationAction
from greycircle.notifications.models import Notification, NotificationKind


@pytest.fixture
def staff_request(db):
    from tests.factories import UserFactory

    request = RequestFactory().get("/admin/")
    request.user = UserFactory(is_staff=True, is_superuser=True)
    return request


def test_every_read_only_model_uses_the_shared_base():
    for model in (Invitation, Notification):
        assert isinstance(admin.site._registry[model], GameRecordAdmin), model
    for model in (ModerationAction, Friendship, FriendRequest, Block):
        assert isinstance(admin.site._registry[model], ReadOnlyAdmin), model


@pytest.mark.parametrize("model", [Invitation, Notification, ModerationAction, Block])
def test_even_a_superuser_may_only_view(staff_request, model):
    model_admin = admin.site._registry[model]
    assert model_admin.has_view_permission(staff_request)
    assert not model_admin.has_add_permission(staff_request)
    assert not model_admin.has_change_permission(staff_request)
    assert not model_admin.has_delete_permission(staff_request)
    assert list(model_admin.get_readonly_fields(staff_request)) == list(model_admin.fields or ())


def test_a_record_links_to_its_game_and_never_reads_its_state(staff_request, alice):
    game = Game.objects.create(kind="circles")
    Notification.objects.create(
        recipient=alice, kind=NotificationKind.GAME_OVER, text="Over", game=game
    )
    Notification.objects.create(recipient=alice, kind=NotificationKind.FRIEND_REQUEST, text="Hi")
    model_admin = admin.site._registry[Notification]

    rows = list(model_admin.get_queryset(staff_request).order_by("pk"))

    assert all("state" in row.game.get_deferred_fields() for row in rows if row.game)
    link = model_admin.game_link(rows[0])
    assert f'href="/admin/games/game/{game.pk}/change/"' in link
    assert f"Game #{game.pk}</a> (circles, " in link
    assert model_admin.game_link(rows[1]) == "—"
