"""Reads of the inbox: newest first, only the recipient's, the unread count in one query."""

from __future__ import annotations

import pytest

from greycircle.notifications.models import NotificationKind
from greycircle.notifications.selectors import notifications_for, notifications_unread_count
from tests.notifications.conftest import notify

pytestmark = pytest.mark.django_db


def test_notifications_for_a_user_are_theirs_newest_first(alice, bob):
    first = notify(alice, NotificationKind.FRIEND_REQUEST)
    notify(bob, NotificationKind.FRIEND_REQUEST)
    second = notify(alice, NotificationKind.FRIEND_ACCEPTED)
    second.read = True
    second.save()

    assert list(notifications_for(user=alice)) == [second, first]
    assert list(notifications_for(user=alice.pk)) == [second, first]
    assert list(notifications_for(user=alice, unread_only=True)) == [first]


def test_the_unread_count_costs_one_query(alice, bob, django_assert_num_queries):
    notify(alice, NotificationKind.FRIEND_REQUEST)
    notify(alice, NotificationKind.FRIEND_ACCEPTED)
    notify(bob, NotificationKind.FRIEND_REQUEST)
    with django_assert_num_queries(1):
        assert notifications_unread_count(user=alice) == 2
    assert notifications_unread_count(user=bob.pk) == 1
