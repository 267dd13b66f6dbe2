"""The Moderators group has what moderators need, kept after every migration."""

import pytest
from django.contrib.auth.models import Group

from greycircle.moderation.permissions import (
    MODERATOR_PERMISSIONS,
    MODERATORS_GROUP,
    moderators_group_ensure,
)
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def granted(group):
    return {
        f"{app_label}.{codename}"
        for app_label, codename in group.permissions.values_list(
            "content_type__app_label", "codename"
        )
    }


def test_migrating_gives_the_group_every_listed_permission():
    assert granted(Group.objects.get(name=MODERATORS_GROUP)) >= set(MODERATOR_PERMISSIONS)


def test_the_group_is_made_again_and_completed_idempotently():
    Group.objects.filter(name=MODERATORS_GROUP).delete()

    moderators_group_ensure()
    moderators_group_ensure()

    group = Group.objects.get(name=MODERATORS_GROUP)
    assert granted(group) == set(MODERATOR_PERMISSIONS)


def test_a_moderator_may_sanction_without_being_a_superuser():
    moderator = UserFactory(is_staff=True)
    moderator.groups.add(Group.objects.get(name=MODERATORS_GROUP))

    assert not moderator.is_superuser
    assert moderator.has_perms(["moderation.add_sanction", "moderation.change_sanction"])
    # The flagged messages too, in games' chats and between friends: shown again or kept hidden.
    assert moderator.has_perms(["chat.change_gamemessage", "conversations.change_directmessage"])
    assert not UserFactory().has_perm("moderation.view_sanction")
