"""The CirKis admin: the board drawn natively (fields in their owners' colours), the scores, the
moves in words, its own permissions; read-only, never the seed, aborting through the service."""

import pytest
from django.contrib.admin import site
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.contenttypes.models import ContentType

from cirkis.admin import CirKisGameAdmin, article, piece_name
from cirkis.board import FIELD_COUNT
from cirkis.models import CirKisGame
from cirkis.rules import RULES
from greycircle.games import services
from greycircle.games.models import GameStatus
from greycircle.games.services import SeatSpec, game_resign, move_submit
from greycircle.moderation.models import ModerationAction
from tests.admin_pages import message_texts, staff_with
from tests.factories import game_started

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/cirkis/cirkisgame/"


def change_url(game):
    return f"{CHANGELIST}{game.pk}/change/"


def abort_url(game):
    return f"{CHANGELIST}{game.pk}/abort/"


def play_first_legal(game, user):
    move = RULES.legal_moves(RULES.decode(game.state))[0]
    return move_submit(
        game_id=game.pk, user=user, move=RULES.move_to_json(move), expected_version=game.version
    )


@pytest.fixture
def game(alice, bob):
    """alice against bob, one piece each (the first legal placement every time)."""
    game = game_started(creator=alice, kind="cirkis", opponents=[SeatSpec(user=bob)])
    game = play_first_legal(game, alice)
    return play_first_legal(game, bob)


def test_the_proxy_holds_cirkis_games_only(game, alice, tictactoe):
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])

    assert list(CirKisGame.objects.values_list("pk", flat=True)) == [game.pk]
    assert CirKisGame.objects.get(pk=game.pk).spectator_view()["to_move"] == 0


def test_page_draws_the_board_coloured_by_owner(admin_client, game):
    view = RULES.view(RULES.decode(game.state), None)

    response = admin_client.get(change_url(game))

    assert response.status_code == 200
    content = response.content.decode()
    assert content.count('class="cirkis-admin__field') == FIELD_COUNT
    for seat in (0, 1):
        owned = [i for i, owner in enumerate(view["owners"]) if owner == seat]
        assert owned
        assert content.count(f'data-owner="{seat}"') == len(owned)
        for field in owned:
            assert f'data-field="{field}" data-owner="{seat}"' in content
    assert 'class="cirkis-admin__leader"' in content
    assert "alice (purple) — to move" in content
    assert 'class="cirkis-admin__score">0<' in content
    assert "Target 40." in content
    assert "cirkis/admin.css" in content
    assert "spectator-view" not in content


def test_page_lists_the_moves_in_words(admin_client, game):
    entries = [move.public for move in game.moves.order_by("number")]

    content = admin_client.get(change_url(game)).content.decode()

    first, second = entries
    assert (
        f"alice (purple) placed {article(piece_name(first['piece']))} {piece_name(first['piece'])}"
        in content
    )
    assert (
        f"bob (red) placed {article(piece_name(second['piece']))} {piece_name(second['piece'])}"
        in content
    )
    assert "&quot;piece&quot;" not in content


def test_events_in_words():
    admin = CirKisGameAdmin(CirKisGame, site)
    entry = {
        "seat": 0,
        "piece": "arrow",
        "fields": [25, 35],
        "events": [
            {"type": "completed", "shape": "C0", "by": 0, "majority": 0, "scores": {"0": 10}},
            {"type": "completed", "shape": "S0", "by": 0, "majority": None, "scores": {"0": 5}},
            {"type": "free_turn", "seat": 0, "reason": "filled"},
            {"type": "lost_turn", "seat": 1},
        ],
    }

    assert admin.describe_move(entry, 0, ["alice", "bob"]) == (
        "alice (purple) placed an Arrow on fields 25 and 35; +10 Circle C0 to alice (purple); "
        "+5 Center Star to alice (purple) (tied for the most); alice (purple) gets a free turn "
        "(filled a hole); bob (red) lost a turn"
    )


def test_page_never_shows_the_seed_and_is_read_only(admin_client, game):
    response = admin_client.get(change_url(game))

    assert str(game.seed) not in response.content.decode()
    shown = set(flatten_fieldsets(response.context["adminform"].fieldsets))
    assert not shown & {"seed", "state"}
    assert admin_client.get(f"{CHANGELIST}add/").status_code == 403
    assert admin_client.get(f"{CHANGELIST}{game.pk}/delete/").status_code == 403
    assert admin_client.post(change_url(game), {"status": "finished"}).status_code == 403
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE


def test_a_finished_game(admin_client, game, alice):
    finished = game_resign(game_id=game.pk, user=alice)

    content = admin_client.get(change_url(finished)).content.decode()

    assert "Nobody to move (finished)." in content
    assert abort_url(finished) not in content


def test_a_cirkis_moderator_sees_only_cirkis(game):
    client = staff_with("view_cirkisgame")

    assert client.get(CHANGELIST).status_code == 200
    assert client.get(change_url(game)).status_code == 200
    assert client.get("/admin/circles/circlesgame/").status_code == 403
    assert client.get("/admin/kingscorner/kingscornergame/").status_code == 403
    assert client.post(abort_url(game)).status_code == 403


def test_abort_goes_through_the_service(game, monkeypatch):
    calls = []
    real_abort = services.game_abort

    def spy(*, game_id):
        calls.append(game_id)
        return real_abort(game_id=game_id)

    monkeypatch.setattr(services, "game_abort", spy)
    client = staff_with("view_cirkisgame", "change_cirkisgame")

    response = client.post(abort_url(game), {"reason": "Stuck after a bug"}, follow=True)

    assert message_texts(response) == [f"Aborted game #{game.pk}."]
    assert calls == [game.pk]
    game.refresh_from_db()
    assert game.status == GameStatus.ABORTED
    entry = LogEntry.objects.get(object_id=str(game.pk))
    assert entry.content_type == ContentType.objects.get_for_model(CirKisGame, False)
    [recorded] = ModerationAction.objects.filter(game=game)
    assert (recorded.action, recorded.reason) == ("game_abort", "Stuck after a bug")
    assert "Stuck after a bug" in client.get(change_url(game)).content.decode()
