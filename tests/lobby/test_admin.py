"""Seeks in the admin: staff find them by seeker, read-only, with the game a seek started."""

import pytest

from greycircle.games.clocks import TimeControl
from greycircle.lobby import services

pytestmark = pytest.mark.django_db


def test_staff_find_a_seek_and_its_game_but_change_nothing(seeker, admin_client):
    alice, bob = seeker(), seeker()
    services.seek_create(user=alice, kind="circles", time_control=TimeControl(3, 2))
    matched = services.seek_create(user=bob, kind="circles", time_control=TimeControl(3, 2))
    listing = admin_client.get("/admin/lobby/seek/", {"q": bob.username}).content.decode()
    assert "circles:3+2:2:rated" in listing
    assert f"Game #{matched.game_id}" in listing
    page = admin_client.get(f"/admin/lobby/seek/{matched.pk}/change/")
    assert page.status_code == 200
    assert b'name="status"' not in page.content  # read-only
    assert admin_client.get("/admin/lobby/seek/add/").status_code == 403
