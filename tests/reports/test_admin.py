"""The moderation desk in the admin, through Django's test client: the queue, a case page, and
who may see and act."""

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from greycircle.games.services import SeatSpec
from tests.factories import UserFactory, game_started
from tests.reports.desk_helpers import DESK, case_url, report

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


# --- who may see it -----------------------------------------------------------------------------


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
