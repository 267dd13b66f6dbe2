"""The players' pages: the friends page reads its notifications (the rest of the friends page:
tests/accounts/test_friends_page.py; guest play, deletion and my data: test_guests.py,
test_deletion.py, test_data.py)."""

import pytest

from greycircle.notifications.models import Notification, NotificationKind
from tests.notifications.conftest import notify

pytestmark = pytest.mark.django_db


def test_opening_the_friends_page_reads_friend_notifications(client, alice):
    request = notify(alice, NotificationKind.FRIEND_REQUEST)
    other = notify(alice, NotificationKind.REMINDER)
    client.force_login(alice)
    client.get("/friends/")
    assert Notification.objects.get(pk=request.pk).read
    assert not Notification.objects.get(pk=other.pk).read
