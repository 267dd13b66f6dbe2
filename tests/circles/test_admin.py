"""The Circles admin: Circles games only, the board drawn natively, the moves in words, its own
permissions; read-only, never the seed, aborting through the service."""

import pytest
from django.contrib.admin import site
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.contenttypes.models import ContentType

from circles.admin import CirclesGameAdmin
from circles.models import CirclesGame
from greycircle.games import services
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec, game_resign, move_submit
from greycircle.moderation.models import ModerationAction
from tests.admin_pages import message_texts, staff_with
from tests.factories import game_started

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/circles/circlesgame/"


def change_url(game):
    return f"{CHANGELIST}{game.pk}/change/"


def abort_url(game):
    return f"{CHANGELIST}{game.pk}/abort/"


@pytest.fixture
def game(alice, bob):
    """alice (white) c5, bob (black) c4: a game in play, 3 discs each."""
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    game = move_submit(game_id=game.pk, user=alice, move={"square": "c5"}, expected_version=1)
    return move_submit(game_id=game.pk, user=bob, move={"square": "c4"}, expected_version=2)


def listed_ids(response):
    return [game.pk for game in response.context["cl"].result_list]


# --- the model --------------------------------------------------------------------------------


def test_the_proxy_holds_circles_games_only(game, alice, tictactoe):
    other = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])

    assert list(CirclesGame.objects.values_list("pk", flat=True)) == [game.pk]
    assert not CirclesGame.objects.filter(pk=other.pk).exists()
    proxied = CirclesGame.objects.with_seats().get(pk=game.pk)
    assert [seat.name for seat in proxied.seats.all()] == ["alice", "bob"]
    assert proxied.spectator_view()["discs"] == [3, 3]
    assert proxied.position().record == (34, 26)


def test_the_manager_creates_circles_games():
    assert CirclesGame.objects.create().kind == "circles"


# --- the list ---------------------------------------------------------------------------------


def test_changelist_lists_only_circles_games(admin_client, game, alice, tictactoe):
    other = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])

    response = admin_client.get(CHANGELIST)

    assert response.status_code == 200
    assert listed_ids(response) == [game.pk]
    content = response.content.decode()
    assert "alice, bob" in content
    assert "column-kind" not in content
    assert str(game.seed) not in content
    assert admin_client.get(change_url(other)).status_code == 302  # not a Circles game: not here


# --- one game's page --------------------------------------------------------------------------


def test_page_draws_the_board_from_the_spectator_view(admin_client, game):
    response = admin_client.get(change_url(game))

    assert response.status_code == 200
    content = response.content.decode()
    assert content.count('class="circles-disc circles-disc--white"') == 3
    assert content.count('class="circles-disc circles-disc--black"') == 3
    for square in ["c5", "d5", "e5"]:
        assert f'circles-disc--white" data-square="{square}"' in content
    for square in ["c4", "d4", "e4"]:
        assert f'circles-disc--black" data-square="{square}"' in content
    assert "White (alice): <strong>3</strong> discs" in content
    assert "Black (bob): <strong>3</strong> discs" in content
    assert "White (alice) to move." in content
    assert "Last move: c4" in content
    assert "c5c4" in content  # the record
    assert "circles/admin.css" in content
    assert "spectator-view" not in content  # drawn, not dumped


def test_page_lists_the_moves_in_words(admin_client, game):
    content = admin_client.get(change_url(game)).content.decode()

    assert "White (alice) c5, flipping 1 disc (d5)" in content
    assert "Black (bob) c4, flipping 1 disc (d4)" in content
    assert "move log (public entries only)" in content.lower()
    assert "&quot;square&quot;" not in content  # words, not JSON


def test_page_never_shows_the_seed_or_raw_state(admin_client, game):
    response = admin_client.get(change_url(game))

    content = response.content.decode()
    assert str(game.seed) not in content
    assert game.state["white"] not in content
    shown = set(flatten_fieldsets(response.context["adminform"].fieldsets))
    assert "spectator_view" in shown
    assert not shown & {"seed", "state"}
    assert not response.context["adminform"].form.fields.keys() & {"seed", "state"}


def test_page_of_an_open_game_and_of_a_finished_one(admin_client, alice, game):
    waiting = game_started(creator=alice, kind="circles", opponents=[SeatSpec()])
    content = admin_client.get(change_url(waiting)).content.decode()
    assert "No state yet: the game has not started." in content
    assert "Open seat" in content

    finished = game_resign(game_id=game.pk, user=alice)
    content = admin_client.get(change_url(finished)).content.decode()
    assert "Nobody to move (finished)." in content
    assert abort_url(finished) not in content


def test_a_pass_is_told_in_words(admin_client):
    admin = CirclesGameAdmin(CirclesGame, site)
    entry = {"square": "h8", "flipped": ["g7", "f6"], "passed": [1]}

    assert admin.describe_move(entry, 0, ["alice", "bob"]) == (
        "White (alice) h8, flipping 2 discs (g7, f6); Black (bob) had no move and passed"
    )


def test_nothing_can_be_added_changed_or_deleted(admin_client, game):
    assert admin_client.get(f"{CHANGELIST}add/").status_code == 403
    assert admin_client.get(f"{CHANGELIST}{game.pk}/delete/").status_code == 403
    actions = admin_client.get(CHANGELIST).context["action_form"].fields["action"].choices
    assert [name for name, _ in actions if name] == ["abort_selected"]

    response = admin_client.post(change_url(game), {"status": "finished", "version": 99})

    assert response.status_code == 403
    game.refresh_from_db()
    assert (game.status, game.version) == (GameStatus.ACTIVE, 3)


# --- permissions: a moderator of Circles only -------------------------------------------------


def test_a_circles_moderator_sees_circles_games_only(game, alice, tictactoe):
    client = staff_with("view_circlesgame")

    assert client.get(CHANGELIST).status_code == 200
    page = client.get(change_url(game))
    assert page.status_code == 200
    assert ">alice</a>" in page.content.decode()  # seats and moves are part of the game
    assert "White (alice) c5" in page.content.decode()
    assert abort_url(game) not in page.content.decode()  # viewing only: no abort
    assert client.post(abort_url(game)).status_code == 403
    for other in ["/admin/kingscorner/kingscornergame/", "/admin/cirkis/cirkisgame/"]:
        assert client.get(other).status_code == 403
    assert client.get(f"/admin/games/game/{game.pk}/change/").status_code == 403
    index = client.get("/admin/").content.decode()
    assert CHANGELIST in index
    assert "/admin/kingscorner/" not in index
    assert "/admin/games/game/" not in index
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE


def test_a_circles_moderator_with_change_permission_aborts_through_the_service(game, monkeypatch):
    calls = []
    real_abort = services.game_abort

    def spy(*, game_id):
        calls.append(game_id)
        return real_abort(game_id=game_id)

    monkeypatch.setattr(services, "game_abort", spy)
    client = staff_with("view_circlesgame", "change_circlesgame")

    page = client.get(change_url(game))
    assert f'href="{abort_url(game)}"' in page.content.decode()
    assert "Yes, abort the game" in client.get(abort_url(game)).content.decode()
    response = client.post(abort_url(game), {"reason": "Stuck after a bug"}, follow=True)

    assert response.redirect_chain == [(change_url(game), 302)]
    assert message_texts(response) == [f"Aborted game #{game.pk}."]
    assert calls == [game.pk]
    game.refresh_from_db()
    assert game.status == GameStatus.ABORTED
    entry = LogEntry.objects.get(object_id=str(game.pk))
    assert entry.change_message == "Aborted the game."
    assert entry.content_type == ContentType.objects.get_for_model(CirclesGame, False)
    [recorded] = ModerationAction.objects.filter(game=game)
    assert (recorded.action, recorded.reason) == ("game_abort", "Stuck after a bug")
    assert "Stuck after a bug" in client.get(change_url(game)).content.decode()


def test_abort_action_in_the_list(admin_client, game, alice):
    waiting = game_started(creator=alice, kind="circles", opponents=[SeatSpec()])

    response = admin_client.post(
        CHANGELIST,
        {
            "action": "abort_selected",
            "_selected_action": [game.pk, waiting.pk],
            "confirm_moderation": "yes",
            "reason": "Test games",
        },
        follow=True,
    )

    assert message_texts(response) == ["Aborted 2 games."]
    assert set(Game.objects.values_list("status", flat=True)) == {GameStatus.ABORTED}


def test_the_platform_page_links_to_the_circles_page(admin_client, game):
    content = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()

    assert f'href="{change_url(game)}" class="kind-admin">View as Circles game</a>' in content
