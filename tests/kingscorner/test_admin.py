"""The King's Corner admin: the piles and hand sizes drawn natively — never a hand during play —,
the moves in words, its own permissions; read-only, never the seed, aborting through the service."""

import pytest
from django.contrib.admin import site
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.contenttypes.models import ContentType

from greycircle.games import services
from greycircle.games.models import Game, GameStatus, Move
from greycircle.games.services import SeatSpec, move_submit
from greycircle.moderation.models import ModerationAction
from kingscorner.admin import KingsCornerGameAdmin, card, card_text
from kingscorner.models import KingsCornerGame
from kingscorner.rules import RULES, PlayCard, position
from tests.admin_pages import message_texts, staff_with
from tests.factories import game_started

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/kingscorner/kingscornergame/"


def change_url(game):
    return f"{CHANGELIST}{game.pk}/change/"


def abort_url(game):
    return f"{CHANGELIST}{game.pk}/abort/"


def play(game, user, move):
    return move_submit(
        game_id=game.pk, user=user, move=RULES.move_to_json(move), expected_version=game.version
    )


@pytest.fixture
def game(alice, bob, carol):
    """alice, bob and carol: alice plays a card if she can and ends her turn (drawing), bob
    ends his: a game in play with secrets in every hand and a private draw in the log."""
    game = game_started(
        creator=alice, kind="kingscorner", opponents=[SeatSpec(user=bob), SeatSpec(user=carol)]
    )
    plays = [m for m in RULES.legal_moves(RULES.decode(game.state)) if isinstance(m, PlayCard)]
    if plays:
        game = play(game, alice, plays[0])
    game = play(game, alice, RULES.legal_moves(RULES.decode(game.state))[-1])
    return play(game, bob, RULES.legal_moves(RULES.decode(game.state))[-1])


def hand_cards(game):
    return [name for hand in game.state["hands"] for name in hand]


def test_the_proxy_holds_king_s_corner_games_only(game, alice, tictactoe):
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])

    assert list(KingsCornerGame.objects.values_list("pk", flat=True)) == [game.pk]
    view = KingsCornerGame.objects.get(pk=game.pk).spectator_view()
    assert "hand" not in view
    assert "final_hands" not in view


def test_changelist_lists_only_king_s_corner_games(admin_client, game, alice, tictactoe):
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])

    response = admin_client.get(CHANGELIST)

    assert [g.pk for g in response.context["cl"].result_list] == [game.pk]
    assert "alice, bob, carol" in response.content.decode()


def test_page_draws_the_piles_hand_sizes_and_stock(admin_client, game):
    view = RULES.view(RULES.decode(game.state), None)

    content = admin_client.get(change_url(game)).content.decode()

    for name, cards in view["piles"].items():
        assert f'data-pile="{name}"' in content
        for name_ in cards:
            shown = card(name_)
            assert f'title="{shown["words"]}"' in content
            assert f">{shown['text']}<" in content
    assert f"<strong>{view['stock']}</strong> cards" in content
    for seat, size in enumerate(view["hand_sizes"]):
        assert f'data-seat="{seat}"' in content
        assert f'<td class="kc-admin__hand-size">{size}</td>' in content
    assert "carol (to move)" in content
    assert "Hands are not shown while the game is on" in content
    assert "kingscorner/admin.css" in content


def test_page_never_shows_a_hand_during_play(admin_client, game):
    response = admin_client.get(change_url(game))

    content = response.content.decode()
    cards = hand_cards(game)
    assert len(cards) >= 21
    for name in cards:
        shown = card(name)
        assert f">{shown['text']}<" not in content, name
        assert shown["words"] not in content, name
    assert str(game.seed) not in content
    assert "final_hands" not in content
    shown_fields = set(flatten_fieldsets(response.context["adminform"].fieldsets))
    assert not shown_fields & {"seed", "state"}


def test_an_aborted_game_still_hides_the_hands(admin_client, game):
    services.game_abort(game_id=game.pk)
    game.refresh_from_db()

    content = admin_client.get(change_url(game)).content.decode()

    assert "Nobody to move (aborted)." in content
    for name in hand_cards(game):
        assert card(name)["words"] not in content, name


def test_the_log_says_a_card_was_drawn_never_which(admin_client, game):
    secret = Move.objects.filter(game=game).exclude(private={}).first()
    assert secret is not None  # a draw, with the card in the private entry

    content = admin_client.get(change_url(game)).content.decode()

    assert "alice ended the turn and drew a card" in content
    assert "bob ended the turn and drew a card" in content
    drawn = next(iter(secret.private.values()))["card"]
    assert f">{card_text(drawn)}<" not in content
    assert card(drawn)["words"] not in content
    assert "&quot;action&quot;" not in content  # words, not JSON


def test_finished_game_shows_the_hands_left_and_penalties(admin_client, alice, bob):
    game = game_started(creator=alice, kind="kingscorner", opponents=[SeatSpec(user=bob)])
    near_end = position(hands=[["AC"], ["KS", "2D"]], piles={"N": ["2H"]}, stock=["3C"])
    Game.objects.filter(pk=game.pk).update(state=RULES.encode(near_end), to_move=0)
    game.refresh_from_db()
    game = play(game, alice, PlayCard(0, 0))  # the ace of clubs on N: alice goes out
    assert game.status == GameStatus.FINISHED

    content = admin_client.get(change_url(game)).content.decode()

    assert "alice played A♣ on N" in content
    assert 'title="king of spades">K♠<' in content
    assert 'title="2 of diamonds"' in content
    assert "<th>Penalty</th>" in content
    assert "<td>11</td>" in content
    assert "Nobody to move (finished)." in content


def test_moves_in_words():
    admin = KingsCornerGameAdmin(KingsCornerGame, site)
    names = ["alice", "bob"]
    assert admin.describe_move({"action": "play", "card": "TD", "to": "NE"}, 1, names) == (
        "bob played 10♦ on NE"
    )
    assert admin.describe_move({"action": "move_pile", "from": "E", "to": "N"}, 0, names) == (
        "alice moved the pile E onto N"
    )
    assert admin.describe_move({"action": "end_turn", "drew": False}, 0, names) == (
        "alice ended the turn (the stock is empty: no card drawn)"
    )


def test_nothing_can_be_added_changed_or_deleted(admin_client, game):
    assert admin_client.get(f"{CHANGELIST}add/").status_code == 403
    assert admin_client.get(f"{CHANGELIST}{game.pk}/delete/").status_code == 403
    version = game.version

    assert admin_client.post(change_url(game), {"status": "finished"}).status_code == 403

    game.refresh_from_db()
    assert (game.status, game.version) == (GameStatus.ACTIVE, version)


def test_a_king_s_corner_moderator_sees_only_king_s_corner(game):
    client = staff_with("view_kingscornergame")

    assert client.get(CHANGELIST).status_code == 200
    assert client.get(change_url(game)).status_code == 200
    assert client.get("/admin/circles/circlesgame/").status_code == 403
    assert client.get("/admin/cirkis/cirkisgame/").status_code == 403
    assert client.post(abort_url(game)).status_code == 403
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE


def test_abort_goes_through_the_service(game, monkeypatch):
    calls = []
    real_abort = services.game_abort

    def spy(*, game_id):
        calls.append(game_id)
        return real_abort(game_id=game_id)

    monkeypatch.setattr(services, "game_abort", spy)
    client = staff_with("view_kingscornergame", "change_kingscornergame")

    response = client.post(abort_url(game), {"reason": "Stuck after a bug"}, follow=True)

    assert message_texts(response) == [f"Aborted game #{game.pk}."]
    assert calls == [game.pk]
    game.refresh_from_db()
    assert game.status == GameStatus.ABORTED
    entry = LogEntry.objects.get(object_id=str(game.pk))
    assert entry.content_type == ContentType.objects.get_for_model(KingsCornerGame, False)
    [recorded] = ModerationAction.objects.filter(game=game)
    assert (recorded.action, recorded.reason) == ("game_abort", "Stuck after a bug")
    assert "Stuck after a bug" in client.get(change_url(game)).content.decode()
