"""Fixtures of the lobby's tests: players present on the site, with a rating."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from greycircle import presence
from greycircle.ratings.models import PlayerRating
from tests.factories import UserFactory

# The moment the tests' seeks are made (every pairing is given its `now`).
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def seeker(db):
    """A player with a socket open (present), rated `rating` at live Circles."""

    def make(rating: float = 1500.0, **fields):
        user = UserFactory(**fields)
        PlayerRating.objects.create(user=user, kind="circles", speed="live", rating=rating)
        presence.presence_socket_opened(user_id=user.pk)
        return user

    return make
