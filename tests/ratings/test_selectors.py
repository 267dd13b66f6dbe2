"""A player's rating at a kind and speed, as pairing players of a like strength asks for it."""

import pytest

from greycircle.ratings.models import PlayerRating
from greycircle.ratings.selectors import player_rating_for, player_ratings_for

pytestmark = pytest.mark.django_db


def test_a_rating_is_read_at_its_kind_and_speed_and_starts_at_1500(alice, bob):
    PlayerRating.objects.create(user=alice, kind="circles", speed="live", rating=1720)
    PlayerRating.objects.create(user=alice, kind="circles", speed="correspondence", rating=1410)

    assert player_rating_for(user_id=alice.pk, kind="circles", speed="live") == 1720
    assert player_rating_for(user_id=alice.pk, kind="circles", speed="correspondence") == 1410
    assert player_rating_for(user_id=alice.pk, kind="cirkis", speed="live") == 1500
    assert player_ratings_for(user_ids=[alice.pk, bob.pk], kind="circles", speed="live") == {
        alice.pk: 1720,
        bob.pk: 1500,
    }
