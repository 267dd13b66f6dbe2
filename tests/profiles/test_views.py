"""The site's profile page, `/u/<username>/`: recent games with their results."""

import pytest

from greycircle.games import services
from greycircle.games.services import SeatSpec, game_create
from tests.factories import game_started
from tests.frontend.test_game_rows import WIPE_OUT

pytestmark = pytest.mark.django_db


def result_of(html: str, game_id: int) -> str:
    """The result line of one recent game on a profile page."""
    item = html[html.index(f'data-game-id="{game_id}"') :]
    start = item.index('<p class="game-list__result"')
    return item[start : item.index("</p>", start)]


def test_recent_games_show_the_result_as_the_viewer_sees_it(client, alice, bob, carol):
    against_computer = game_create(
        creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")], record=WIPE_OUT
    )
    against_bob = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    services.game_resign(game_id=against_bob.pk, user=bob)

    client.force_login(carol)  # played in neither: the winner's name
    html = client.get("/u/alice/").content.decode()
    assert "alice won 13-0 on discs" in result_of(html, against_computer.pk)
    assert "alice won: bob resigned" in result_of(html, against_bob.pk)

    client.force_login(bob)  # from his seat
    html = client.get("/u/alice/").content.decode()
    assert 'data-result="lost"><strong>You resigned' in result_of(html, against_bob.pk)
    client.force_login(alice)
    html = client.get("/u/bob/").content.decode()
    assert 'data-result="won"><strong>You won: bob resigned' in result_of(html, against_bob.pk)
