"""The moderation desk in the admin, through Django's test client: the queue, a case page, and
who may see and act."""

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from greycircle.games.services import SeatSpec
from greycircle.moderation import sanctions
from greycircle.moderation.models import ModerationAction
from greycircle.ratings.models import PlayerRating, RatingChange
from greycircle.reports import resolution
from greycircle.reports.models import Report, ReportStatus
from tests.admin_pages import message_texts
from tests.factories import UserFactory, game_started, moderator_make
from tests.reports.desk_helpers import DESK, REASON, case_url, chat_lines, report

pytestmark = pytest.mark.django_db


def test_the_admin_index_leads_to_the_desk(admin_client):
    assert f'href="{DESK}"'.encode() in admin_client.get("/admin/").content


def test_the_queue_lists_players_with_counts_and_links_their_case(admin_client, alice, bob, carol):
    report(bob, reporter=alice, ago_hours=3, target="a")
    report(bob, reporter=carol, ago_hours=1, target="b")
    report(carol, reporter=alice, ago_hours=2)

    response = admin_client.get(DESK)

    assert response.status_code == 200
    assert [entry.user for entry in response.context["entries"]] == [bob, carol]
    content = response.content.decode()
    assert f'href="{case_url(bob)}">bob</a>' in content
    assert "Abusive chat: 2" in content


def test_the_queue_filters_by_reason(admin_client, alice, bob, carol):
    report(bob, reporter=alice, reason="spam")
    report(carol, reporter=alice)

    response = admin_client.get(DESK, {"reason": "spam"})

    assert [entry.user for entry in response.context["entries"]] == [bob]


def test_a_report_s_own_page_is_its_player_s_case(admin_client, alice, bob):
    filed = report(bob, reporter=alice)

    response = admin_client.get(f"{DESK}{filed.pk}/change/")

    assert response.status_code == 302
    assert response["Location"] == f"{case_url(bob)}#report-{filed.pk}"


def test_the_case_page_shows_the_reports_and_the_games_without_hidden_information(
    admin_client, alice, bob, tictactoe
):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    filed = report(bob, reporter=alice, game=game, comment="He <b>stalls</b> every game")

    response = admin_client.get(case_url(bob))

    assert response.status_code == 200
    content = response.content.decode()
    assert f'id="report-{filed.pk}"' in content
    assert "He &lt;b&gt;stalls&lt;/b&gt; every game" in content  # escaped
    assert f'href="/admin/games/game/{game.pk}/change/">Game #{game.pk}</a>' in content
    assert str(game.seed) not in content
    assert [opponent.user for opponent in response.context["opponents"]] == [alice]


def test_the_case_page_shows_a_reported_message_in_context_hidden_ones_marked(
    admin_client, alice, bob, tictactoe
):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    _, reported, _ = chat_lines(game, bob, alice, 3)
    reported.body, reported.hidden = "you <script>x</script> fool", True
    reported.save()
    report(bob, game_message=reported, game=game)

    content = admin_client.get(case_url(bob)).content.decode()

    assert "line 0" in content
    assert "line 2" in content
    assert "you &lt;script&gt;x&lt;/script&gt; fool <strong>(reported)</strong>" in content
    assert "(hidden from others: flagged, not reviewed yet)" in content


def test_the_case_page_shows_earlier_reports_sanctions_the_log_and_ratings(
    admin_client, staff, alice, bob, tictactoe
):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    earlier = report(bob, reporter=alice, ago_hours=48)
    resolution.reports_resolve(
        actor=staff, report_ids=[earlier.pk], action="mute", reason=REASON, days=2
    )
    PlayerRating.objects.create(user=bob, kind="tictactoe", rating=1432, games=4)
    RatingChange.objects.create(
        game=game,
        user=bob,
        kind="tictactoe",
        rating_before=1500,
        rating_after=1432,
        deviation_after=200,
    )
    report(bob, reporter=alice)

    response = admin_client.get(case_url(bob))

    assert response.context["earlier"] == [Report.objects.get(pk=earlier.pk)]
    [line] = response.context["sanctions"]
    assert (line.sanction.kind, line.active, line.liftable) == ("mute", True, True)
    content = response.content.decode()
    assert "Actioned" in content  # the earlier report's outcome
    assert "Chat muted for bob until" in content  # the earlier report's log entry
    assert REASON in content  # the moderation log's why
    assert "1432" in content
    assert f'href="/admin/games/game/{game.pk}/change/">Game #{game.pk}</a>' in content


# --- acting ------------------------------------------------------------------------------------


def test_assigning_from_the_case_page(admin_client, staff, alice, bob):
    filed = report(bob, reporter=alice)

    response = admin_client.post(f"{case_url(bob)}assign/", follow=True)

    assert message_texts(response) == ["1 open report about bob assigned to you."]
    filed.refresh_from_db()
    assert filed.assigned_to == staff


def _resolve(client, player, reports, **fields):
    data = {"reports": [r.pk for r in reports], "reason": REASON, **fields}
    return client.post(f"{case_url(player)}resolve/", data)


def test_resolving_asks_to_confirm_then_acts(admin_client, alice, bob):
    filed = report(bob, reporter=alice)

    asked = _resolve(admin_client, bob, [filed], action="mute", days="3")

    assert asked.status_code == 200
    assert "Mute bob&#x27;s chat for 3 days" in asked.content.decode()
    assert 'name="confirm_moderation"' in asked.content.decode()
    bob.refresh_from_db()
    assert bob.chat_muted_until is None  # nothing yet

    done = _resolve(admin_client, bob, [filed], action="mute", days="3", confirm_moderation="1")

    assert done.status_code == 302
    assert done["Location"] == DESK
    bob.refresh_from_db()
    assert bob.chat_muted_until is not None
    filed.refresh_from_db()
    assert filed.status == ReportStatus.HANDLED


def test_resolving_without_a_reason_shows_the_case_again(admin_client, alice, bob):
    filed = report(bob, reporter=alice)

    response = _resolve(
        admin_client, bob, [filed], action="dismiss", reason="", confirm_moderation="1"
    )

    assert response.status_code == 200
    assert response.context["form"].errors["reason"]
    filed.refresh_from_db()
    assert filed.status == ReportStatus.OPEN
    assert not ModerationAction.objects.exists()


def test_a_refusal_of_the_service_is_shown_on_the_case(admin_client, alice, bob):
    filed = report(bob, reporter=alice, reason="offensive_username")

    response = _resolve(
        admin_client, bob, [filed], action="rename", username="alice", confirm_moderation="1"
    )

    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert Report.objects.get(pk=filed.pk).status == ReportStatus.OPEN


def test_lifting_a_sanction_from_the_case_asks_why(admin_client, staff, alice, bob):
    mute = sanctions.sanction_impose(
        actor=staff, user_id=bob.pk, kind="mute", reason=REASON, days=2
    )
    lift = f"{case_url(bob)}sanctions/{mute.pk}/lift/"
    assert f'href="{lift}"' in admin_client.get(case_url(bob)).content.decode()

    asked = admin_client.post(lift, {"reason": ""})
    assert asked.status_code == 200  # asked again
    bob.refresh_from_db()
    assert bob.chat_muted_until is not None

    response = admin_client.post(lift, {"reason": "Muted by mistake."}, follow=True)

    assert message_texts(response) == ["Lifted bob's sanction: chat muted."]
    bob.refresh_from_db()
    assert bob.chat_muted_until is None
    mute.refresh_from_db()
    assert mute.lift_reason == "Muted by mistake."


# --- who may see it -----------------------------------------------------------------------------


@pytest.fixture
def moderator_client():
    """A member of staff in the Moderators group, not a superuser."""
    client = Client()
    client.force_login(moderator_make())
    return client


def test_a_moderator_who_is_no_superuser_sees_the_desk_and_acts(moderator_client, alice, bob):
    filed = report(bob, reporter=alice)

    assert moderator_client.get(DESK).context["entries"][0].user == bob
    case = moderator_client.get(case_url(bob))
    assert case.status_code == 200
    assert case.context["may_act"]
    done = _resolve(moderator_client, bob, [filed], action="warn", confirm_moderation="1")

    assert done.status_code == 302
    assert sanctions.sanctions_of(user_id=bob.pk).get().kind == "warn"


def test_staff_who_may_only_view_reports_cannot_act(alice, bob):
    filed = report(bob, reporter=alice)
    client = _staff_client("view_report")

    case = client.get(case_url(bob))
    assert case.status_code == 200
    assert not case.context["may_act"]
    assert 'action="' + case_url(bob) + 'resolve/"' not in case.content.decode()
    assert client.post(f"{case_url(bob)}assign/").status_code == 403
    assert (
        _resolve(client, bob, [filed], action="dismiss", confirm_moderation="1").status_code == 403
    )
    assert Report.objects.get(pk=filed.pk).status == ReportStatus.OPEN


def _staff_client(*codenames):
    user = UserFactory(is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="reports", codename__in=codenames)
    )
    client = Client()
    client.force_login(user)
    return client


def test_staff_without_the_reports_permissions_see_no_desk(alice, bob):
    report(bob, reporter=alice)
    client = _staff_client()

    assert client.get(DESK).status_code == 403
    assert client.get(case_url(bob)).status_code == 403


def test_players_never_reach_the_desk(alice, bob):
    report(bob, reporter=alice)
    client = Client()
    client.force_login(alice)

    for url in (DESK, case_url(bob)):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")
