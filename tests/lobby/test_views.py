"""The lobby's page (`/lobby/`): every kind's quick pools with their counts, the custom seek's
form, and the link to it in the site's navigation."""

from __future__ import annotations

import re

import pytest

from greycircle.games.clocks import TimeControl
from greycircle.lobby import services

pytestmark = pytest.mark.django_db


def test_the_page_shows_each_kinds_pools_with_their_counts(seeker, client):
    alice, bob = seeker(), seeker()
    services.seek_create(user=alice, kind="circles", time_control=TimeControl(3, 2))
    client.force_login(bob)
    page = client.get("/lobby/").content.decode()
    assert 'href="/lobby/" aria-current="page">Lobby</a>' in page
    button = re.search(r'<button[^>]*data-pool="circles:3\+2:2:rated".*?</button>', page, re.S)
    assert button is not None
    assert "<span data-waiting>1</span> waiting" in button.group()
    for pool in ("kingscorner:3+5:6:rated", "cirkis:10+10:4:rated", "circles:15+10:2:rated"):
        assert f'data-pool="{pool}"' in page
    assert 'id="custom-seek"' in page
    assert 'id="seek-rated" name="rated" type="checkbox" checked' in page
    assert "frontend/js/lobby.js" in page


def test_a_guests_pools_are_casual(seeker, client):
    client.force_login(seeker(is_guest=True))
    page = client.get("/lobby/").content.decode()
    assert 'data-pool="circles:3+2:2:casual"' in page
    assert 'data-pool="circles:3+2:2:rated"' not in page
    assert 'id="seek-rated" name="rated" type="checkbox" disabled' in page


def test_a_visitor_sees_the_pools_and_is_asked_to_sign_in_to_join(seeker, client):
    services.seek_create(user=seeker(), kind="circles", time_control=TimeControl(3, 2))

    page = client.get("/lobby/").content.decode()

    button = re.search(r'<button[^>]*data-pool="circles:3\+2:2:rated".*?</button>', page, re.S)
    assert button is not None
    assert " disabled " in button.group()
    assert "<span data-waiting>1</span> waiting" in button.group()
    assert '<a href="/accounts/login/?next=/lobby/">Log in</a>' in page
    # Seeking, and the socket that keeps the counts live, need an account.
    assert 'id="custom-seek"' not in page
    assert "frontend/js/lobby.js" not in page
