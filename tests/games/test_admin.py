"""The game admin: read-only, the spectator view only, never the seed; aborting via services."""

import json
from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.html import escape

from accounts.models import User
from greycircle.games import invitations, registry, services
from greycircle.games.models import Game, GameStatus, Invitation, Move
from greycircle.games.services import SeatSpec, game_resign, move_submit
from greycircle.moderation import services as moderation_services
from greycircle.moderation.models import ModerationAction
from greycircle.notifications.models import Notification, NotificationKind
from tests.admin_pages import message_texts
from tests.factories import UserFactory, accept_invitations, game_started, let_anyone_invite

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

CHANGELIST = "/admin/games/game/"
INVITATIONS = "/admin/games/invitation/"
NOTIFICATIONS = "/admin/notifications/notification/"


def change_url(game):
    return f"/admin/games/game/{game.pk}/change/"


def abort_url(game):
    return f"/admin/games/game/{game.pk}/abort/"


@pytest.fixture
def game(alice, bob):
    """alice (X) against bob, two moves in: a game in play with a move log."""
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    game = move_submit(game_id=game.pk, user=alice, move={"cell": 4}, expected_version=1)
    return move_submit(game_id=game.pk, user=bob, move={"cell": 0}, expected_version=2)


@pytest.fixture
def finished(alice, carol):
    game = game_started(creator=carol, kind="tictactoe", opponents=[SeatSpec(user=alice)])
    return game_resign(game_id=game.pk, user=carol)


def listed_ids(response):
    return [game.pk for game in response.context["cl"].result_list]


REASON = "Both players asked us to end it after a bug."


def abort_action(client, games, *, reason=REASON, confirmed=True):
    """The abort action on `games`: confirmed on its page with `reason`, or (`confirmed=False`)
    as first posted from the change list."""
    data = {"action": "abort_selected", "_selected_action": [game.pk for game in games]}
    if confirmed:
        data |= {"confirm_moderation": "yes", "reason": reason}
    return client.post(CHANGELIST, data, follow=True)


# --- who may enter ------------------------------------------------------------------------------


def test_anonymous_visitors_are_sent_to_the_admin_login(client, game):
    for path in [CHANGELIST, change_url(game), abort_url(game)]:
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/?next=")


def test_players_are_sent_to_the_admin_login_and_cannot_abort(alice, game):
    client = Client()
    client.force_login(alice)

    for path in [CHANGELIST, change_url(game)]:
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/?next=")
    response = client.post(abort_url(game))
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE


# --- the list -----------------------------------------------------------------------------------


def test_changelist_shows_games_with_their_players(admin_client, game, finished):
    response = admin_client.get(CHANGELIST)

    assert response.status_code == 200
    assert listed_ids(response) == [finished.pk, game.pk]
    content = response.content.decode()
    assert "alice, bob" in content
    assert "carol, alice" in content
    for column in ["kind", "status", "players", "version", "move_count", "created_at"]:
        assert f"column-{column}" in content
    assert str(game.seed) not in content
    assert str(finished.seed) not in content


def test_changelist_costs_the_same_queries_for_more_games(
    admin_client, alice, bob, game, django_assert_max_num_queries
):
    with django_assert_max_num_queries(20):
        admin_client.get(CHANGELIST)
    for _ in range(5):
        game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    with django_assert_max_num_queries(20):
        response = admin_client.get(CHANGELIST)
    assert len(listed_ids(response)) == 6


def test_search_by_player_username(admin_client, game, finished, bob, carol):
    dave = UserFactory(username="dave")
    computer_game = game_started(
        creator=dave, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )

    assert listed_ids(admin_client.get(CHANGELIST, {"q": "bob"})) == [game.pk]
    assert listed_ids(admin_client.get(CHANGELIST, {"q": "carol"})) == [finished.pk]
    assert sorted(listed_ids(admin_client.get(CHANGELIST, {"q": "alice"}))) == [
        game.pk,
        finished.pk,
    ]
    assert listed_ids(admin_client.get(CHANGELIST, {"q": "dave"})) == [computer_game.pk]


def test_filter_by_status_and_kind(admin_client, game, finished):
    active = admin_client.get(CHANGELIST, {"status__exact": "active"})
    assert listed_ids(active) == [game.pk]
    over = admin_client.get(CHANGELIST, {"status__exact": "finished"})
    assert listed_ids(over) == [finished.pk]

    Game.objects.filter(pk=finished.pk).update(kind="othergame")
    by_kind = admin_client.get(CHANGELIST, {"kind": "tictactoe"})
    assert listed_ids(by_kind) == [game.pk]
    by_other_kind = admin_client.get(CHANGELIST, {"kind": "othergame"})
    assert listed_ids(by_other_kind) == [finished.pk]


def test_filter_by_created_at(admin_client, game, finished):
    Game.objects.filter(pk=finished.pk).update(created_at=timezone.now() - timedelta(days=60))
    cl = admin_client.get(CHANGELIST).context["cl"]
    [date_filter] = [spec for spec in cl.filter_specs if spec.field_path == "created_at"]
    choices = {str(choice["display"]): choice["query_string"] for choice in date_filter.choices(cl)}

    response = admin_client.get(CHANGELIST + choices["Past 7 days"])

    assert listed_ids(response) == [game.pk]


def test_filter_by_player_as_linked_from_the_user_page(admin_client, game, finished, bob):
    response = admin_client.get(CHANGELIST, {"player": bob.pk})

    assert listed_ids(response) == [game.pk]
    assert "bob" in response.content.decode()  # the filter shows whose games these are


def test_no_adding_changing_or_deleting(admin_client, game):
    assert admin_client.get("/admin/games/game/add/").status_code == 403
    assert admin_client.get(f"/admin/games/game/{game.pk}/delete/").status_code == 403
    actions = admin_client.get(CHANGELIST).context["action_form"].fields["action"].choices
    assert [name for name, _ in actions if name] == ["abort_selected"]

    response = admin_client.post(
        change_url(game), {"status": "finished", "version": 99, "options": '{"note": "x"}'}
    )

    assert response.status_code == 403
    game.refresh_from_db()
    assert (game.status, game.version, game.options) == (GameStatus.ACTIVE, 3, {})


# --- one game's page ----------------------------------------------------------------------------


def test_game_page_shows_the_spectator_view_and_public_log(admin_client, game):
    response = admin_client.get(change_url(game))

    assert response.status_code == 200
    content = response.content.decode()
    spectator = registry.get("tictactoe").rules.view(
        registry.get("tictactoe").rules.decode(game.state), None
    )
    pretty = json.dumps(spectator, indent=2, sort_keys=True)
    assert f'<pre class="spectator-view">{escape(pretty)}</pre>' in content
    # Seats, linked to the players' user pages.
    assert f'href="/admin/accounts/user/{game.seats.get(index=0).user_id}/change/">alice</a>' in (
        content
    )
    assert ">bob</a>" in content
    # The log: both moves' public entries.
    assert "{&quot;cell&quot;: 4}" in content
    assert "{&quot;cell&quot;: 0}" in content
    assert "move log (public entries only)" in content.lower()


def test_game_page_never_shows_the_seed_or_private_log_detail(admin_client, game):
    assert Move.objects.filter(game=game, private__has_key="0").exists()  # there is a secret

    response = admin_client.get(change_url(game))

    content = response.content.decode()
    assert str(game.seed) not in content
    assert "mine" not in content
    assert "seed" not in response.context["adminform"].form.fields
    assert "state" not in response.context["adminform"].form.fields
    shown = set(flatten_fieldsets(response.context["adminform"].fieldsets))
    assert "spectator_view" in shown
    assert not shown & {"seed", "state"}


def test_game_page_of_an_unknown_kind_shows_a_notice(admin_client, game):
    Game.objects.filter(pk=game.pk).update(kind="retired")

    response = admin_client.get(change_url(game))

    assert response.status_code == 200
    content = response.content.decode()
    assert "The game kind &#x27;retired&#x27; is not installed" in content
    assert str(game.seed) not in content
    assert "spectator-view" not in content


def test_game_page_of_an_open_game(admin_client, alice):
    waiting = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec()])

    response = admin_client.get(change_url(waiting))

    assert response.status_code == 200
    content = response.content.decode()
    assert "No state yet: the game has not started." in content
    assert "Open seat" in content


# --- aborting -----------------------------------------------------------------------------------


def test_abort_action_aborts_active_games(admin_client, game, alice):
    waiting = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec()])

    response = abort_action(admin_client, [game, waiting])

    assert message_texts(response) == ["Aborted 2 games."]
    for aborted in (game, waiting):
        aborted.refresh_from_db()
        assert aborted.status == GameStatus.ABORTED
        assert aborted.to_move is None
        assert aborted.finished_at is not None
    assert game.version == 4
    assert LogEntry.objects.filter(object_id=str(game.pk), change_message="Aborted the game.")


def test_abort_action_refuses_finished_games_with_a_message(admin_client, game, finished):
    response = abort_action(admin_client, [game, finished])

    assert message_texts(response) == [
        "Aborted 1 game.",
        f"Game #{finished.pk} was not aborted: it is already over.",
    ]
    game.refresh_from_db()
    finished.refresh_from_db()
    assert game.status == GameStatus.ABORTED
    assert finished.status == GameStatus.FINISHED


def test_abort_button_asks_then_aborts(admin_client, game):
    page = admin_client.get(change_url(game))
    assert f'href="{abort_url(game)}"' in page.content.decode()

    confirm = admin_client.get(abort_url(game))
    assert confirm.status_code == 200
    assert "Yes, abort the game" in confirm.content.decode()
    assert "alice, bob" in confirm.content.decode()
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE  # asking changes nothing

    response = admin_client.post(abort_url(game), {"reason": REASON}, follow=True)

    assert response.redirect_chain == [(change_url(game), 302)]
    assert message_texts(response) == [f"Aborted game #{game.pk}."]
    game.refresh_from_db()
    assert game.status == GameStatus.ABORTED
    assert f'href="{abort_url(game)}"' not in response.content.decode()


def test_abort_button_is_absent_and_refused_for_a_finished_game(admin_client, finished):
    page = admin_client.get(change_url(finished))
    assert abort_url(finished) not in page.content.decode()

    response = admin_client.post(abort_url(finished), {"reason": REASON}, follow=True)

    assert message_texts(response) == [f"{finished} is already over."]
    finished.refresh_from_db()
    assert finished.status == GameStatus.FINISHED


def test_staff_who_may_only_view_games_cannot_abort(game):
    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_game"))
    client = Client()
    client.force_login(viewer)

    page = client.get(change_url(game))
    assert page.status_code == 200
    assert abort_url(game) not in page.content.decode()
    assert ">alice</a>" in page.content.decode()
    assert "{&quot;cell&quot;: 4}" in page.content.decode()  # seats and moves are part of the game
    assert client.post(abort_url(game), {"reason": REASON}).status_code == 403
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE
    assert not ModerationAction.objects.exists()


# --- the base for the games' own admins -----------------------------------------------------------


def test_the_platform_admin_imports_no_game():
    import ast
    from pathlib import Path

    import greycircle.games.admin as module

    tree = ast.parse(Path(module.__file__).read_text())
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    }
    assert not imported & {"circles", "kingscorner", "cirkis"}


def test_a_game_page_links_to_its_kind_s_admin_only_for_those_who_may_see_it(
    admin_client, alice, bob
):
    circles = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    link = f'href="/admin/circles/circlesgame/{circles.pk}/change/" class="kind-admin"'
    assert link in admin_client.get(change_url(circles)).content.decode()

    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_game"))
    client = Client()
    client.force_login(viewer)
    page = client.get(change_url(circles))
    assert page.status_code == 200
    assert "kind-admin" not in page.content.decode()
    assert '<pre class="spectator-view">' in page.content.decode()  # the platform shows JSON


def test_a_game_without_an_admin_of_its_own_has_no_link(admin_client, game):
    assert "kind-admin" not in admin_client.get(change_url(game)).content.decode()


# --- moderation: every abort asks why and is recorded -------------------------------------------


def staffer():
    return User.objects.get(username="staffer")


def test_the_abort_action_asks_why_first_and_changes_nothing(admin_client, game):
    response = abort_action(admin_client, [game], confirmed=False)

    assert response.status_code == 200
    content = response.content.decode()
    assert "Abort these games?" in content
    assert '<textarea name="reason"' in content
    assert f"tictactoe #{game.pk} (active) — alice, bob" in content
    assert f'name="_selected_action" value="{game.pk}"' in content
    assert str(game.seed) not in content
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE
    assert not ModerationAction.objects.exists()


@pytest.mark.parametrize("reason", ["", "   "])
def test_the_abort_action_without_a_reason_is_refused(admin_client, game, reason):
    response = abort_action(admin_client, [game], reason=reason)

    assert response.status_code == 200
    assert "Say why: a reason is required" in response.content.decode()
    assert message_texts(response) == []
    game.refresh_from_db()
    assert (game.status, game.version) == (GameStatus.ACTIVE, 3)
    assert not ModerationAction.objects.exists()
    assert not LogEntry.objects.exists()


def test_the_abort_action_records_who_what_when_and_why_for_each_game(admin_client, game, alice):
    waiting = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec()])
    before = timezone.now()

    abort_action(admin_client, [game, waiting])

    entries = list(ModerationAction.objects.order_by("game_id"))
    assert [(e.game_id, e.actor, e.action, e.reason, e.user_id) for e in entries] == [
        (game.pk, staffer(), "game_abort", REASON, None),
        (waiting.pk, staffer(), "game_abort", REASON, None),
    ]
    assert entries[0].description == f"Aborted tictactoe game #{game.pk} (alice, bob)."
    assert all(before <= entry.created <= timezone.now() for entry in entries)


def test_a_game_already_over_is_not_recorded(admin_client, game, finished):
    abort_action(admin_client, [game, finished])

    assert list(ModerationAction.objects.values_list("game_id", flat=True)) == [game.pk]


@pytest.mark.parametrize("data", [{}, {"reason": ""}, {"reason": " \n "}])
def test_the_abort_page_without_a_reason_is_refused(admin_client, game, data):
    response = admin_client.post(abort_url(game), data)

    assert response.status_code == 200
    content = response.content.decode()
    assert "Say why: a reason is required" in content
    assert "Yes, abort the game" in content
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE
    assert not ModerationAction.objects.exists()


def test_the_abort_page_records_the_reason(admin_client, game):
    admin_client.post(abort_url(game), {"reason": "  Cheating suspected.  "})

    [entry] = ModerationAction.objects.all()
    assert (entry.game_id, entry.actor, entry.action, entry.reason) == (
        game.pk,
        staffer(),
        "game_abort",
        "Cheating suspected.",
    )


def test_the_game_page_shows_its_moderation_log_newest_first(admin_client, game, alice):
    other = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])
    abort_action(admin_client, [other], reason="Not about this game")
    older = moderation_services.moderation_record(
        actor=staffer(),
        action="game_abort",
        reason="An earlier look",
        game=game,
        description="An earlier entry",
    )
    ModerationAction.objects.filter(pk=older.pk).update(created=timezone.now() - timedelta(days=2))
    admin_client.post(abort_url(game), {"reason": "Players asked <us>"})

    content = admin_client.get(change_url(game)).content.decode()

    assert "Moderation log" in content
    assert '<table class="moderation-log">' in content
    assert "<td>staffer</td>" in content
    assert f"Aborted tictactoe game #{game.pk} (alice, bob)." in content
    assert "Players asked &lt;us&gt;" in content  # escaped
    assert content.index("Players asked") < content.index("An earlier look")  # newest first
    assert "Not about this game" not in content


def test_a_game_page_without_moderation_says_so(admin_client, game):
    assert "No moderation actions." in admin_client.get(change_url(game)).content.decode()


# --- invitations and notifications: searchable, read-only, nothing hidden -----------------------


def invitation_for(creator, invitee, kind="tictactoe"):
    """A game of `creator` with a pending invitation to `invitee`."""
    let_anyone_invite(invitee)
    game = services.game_create(creator=creator, kind=kind, opponents=[SeatSpec(user=invitee)])
    return Invitation.objects.get(game=game, invitee=invitee)


def listed(response):
    return list(response.context["cl"].result_list)


def test_staff_search_invitations_by_either_username_and_filter_by_status(
    admin_client, alice, bob, carol
):
    to_bob = invitation_for(alice, bob)
    to_alice = invitation_for(carol, alice)
    invitations.invitation_decline(invitation_id=to_alice.pk, user=alice)

    assert listed(admin_client.get(INVITATIONS, {"q": "bob"})) == [to_bob]
    assert listed(admin_client.get(INVITATIONS, {"q": "carol"})) == [to_alice]
    assert set(listed(admin_client.get(INVITATIONS, {"q": "alice"}))) == {to_bob, to_alice}
    assert listed(admin_client.get(INVITATIONS, {"q": "nobody"})) == []
    pending = admin_client.get(INVITATIONS, {"status__exact": "pending"})
    assert listed(pending) == [to_bob]
    declined = admin_client.get(INVITATIONS, {"status__exact": "declined"})
    assert listed(declined) == [to_alice]
    content = admin_client.get(INVITATIONS).content.decode()
    assert f'href="/admin/games/game/{to_bob.game_id}/change/">Game #{to_bob.game_id}</a>' in (
        content
    )


def test_staff_search_notifications_by_username_and_filter_by_kind(admin_client, alice, bob):
    for_alice = Notification.objects.create(
        recipient=alice, kind=NotificationKind.FRIEND_REQUEST, text="bob wants to be friends"
    )
    for_bob = Notification.objects.create(
        recipient=bob, kind=NotificationKind.REMINDER, text="alice reminds you"
    )

    assert listed(admin_client.get(NOTIFICATIONS, {"q": "alice"})) == [for_alice]
    assert listed(admin_client.get(NOTIFICATIONS, {"q": "bob"})) == [for_bob]
    by_kind = admin_client.get(NOTIFICATIONS, {"kind__exact": "reminder"})
    assert listed(by_kind) == [for_bob]
    assert "alice reminds you" in by_kind.content.decode()


@pytest.mark.parametrize("changelist", [INVITATIONS, NOTIFICATIONS])
def test_invitations_and_notifications_cost_the_same_queries_for_more_rows(
    admin_client, alice, changelist
):
    def add_rows(count):
        for _ in range(count):
            invitee = UserFactory()
            invitation = invitation_for(alice, invitee)
            Notification.objects.create(
                recipient=invitee,
                kind=NotificationKind.INVITATION,
                text="alice invites you",
                game_id=invitation.game_id,
            )

    add_rows(1)
    with CaptureQueriesContext(connection) as one:
        admin_client.get(changelist)
    add_rows(5)
    with CaptureQueriesContext(connection) as six:
        response = admin_client.get(changelist)

    assert len(listed(response)) >= 6
    assert len(six) == len(one)


def test_invitations_and_notifications_are_read_only(admin_client, alice, bob):
    invitation = invitation_for(alice, bob)
    notification = Notification.objects.create(
        recipient=bob, kind=NotificationKind.INVITATION, text="alice invites you"
    )

    for changelist, row in [(INVITATIONS, invitation), (NOTIFICATIONS, notification)]:
        assert admin_client.get(f"{changelist}add/").status_code == 403
        assert admin_client.get(f"{changelist}{row.pk}/change/").status_code == 200  # to view
        assert admin_client.post(f"{changelist}{row.pk}/change/", {}).status_code == 403
        assert admin_client.post(f"{changelist}{row.pk}/delete/", {"post": "yes"}).status_code == (
            403
        )
        assert admin_client.get(changelist).context["action_form"] is None  # no actions at all
    invitation.refresh_from_db()
    assert invitation.status == "pending"
    assert Notification.objects.filter(pk=notification.pk).exists()


def test_invitation_and_notification_pages_never_show_a_king_s_corner_hand(
    admin_client, alice, bob, carol
):
    let_anyone_invite(bob, carol)
    game = services.game_create(
        creator=alice, kind="kingscorner", opponents=[SeatSpec(user=bob), SeatSpec(user=carol)]
    )
    accept_invitations(game.pk)
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE
    hands = [card for hand in game.state["hands"] for card in hand]
    assert len(hands) >= 21
    notification = Notification.objects.create(
        recipient=bob, kind=NotificationKind.YOUR_TURN, text="Your turn", game=game
    )
    invitation = Invitation.objects.filter(game=game).first()

    pages = [
        admin_client.get(INVITATIONS),
        admin_client.get(f"{INVITATIONS}{invitation.pk}/change/"),
        admin_client.get(NOTIFICATIONS),
        admin_client.get(f"{NOTIFICATIONS}{notification.pk}/change/"),
    ]

    for response in pages:
        assert response.status_code == 200
        content = response.content.decode()
        assert f"Game #{game.pk}" in content
        for shown in ["♣", "♦", "♥", "♠", " of clubs", " of diamonds", " of hearts", " of spades"]:
            assert shown not in content
        assert "hands" not in content
        assert "stock" not in content
        assert str(game.seed) not in content
        for card in hands:  # no card code as a word of its own (a JSON list of a hand, say)
            assert f'"{card}"' not in content
            assert f"&quot;{card}&quot;" not in content
