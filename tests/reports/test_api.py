"""`/api/v1/reports/`: filing a report and seeing mine, as a reporter sees them."""

import pytest
from django.utils import timezone
from rest_framework.throttling import ScopedRateThrottle

from greycircle.chat.services import game_message_post
from greycircle.games.services import SeatSpec
from greycircle.reports.models import Report
from tests.factories import UserFactory, game_started

pytestmark = pytest.mark.django_db


def test_a_report_is_filed_and_shown_without_its_outcome(alice, bob, client_for, staff):
    client = client_for(alice)
    response = client.post(
        "/api/v1/reports/", {"reason": "abusive_chat", "username": "bob", "comment": "Rude."}
    )

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "reason", "created", "status"}
    assert (body["reason"], body["status"]) == ("abusive_chat", "open")
    report = Report.objects.get(pk=body["id"])
    assert (report.reporter, report.user, report.comment) == (alice, bob, "Rude.")

    Report.objects.filter(pk=report.pk).update(
        status="handled", outcome="actioned", handled_by=staff, handled_at=timezone.now()
    )
    [mine] = client.get("/api/v1/reports/").json()["results"]
    assert mine == {**body, "status": "handled"}


@pytest.mark.usefixtures("tictactoe")
def test_a_game_is_reported(alice, bob, client_for):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    response = client_for(bob).post("/api/v1/reports/", {"reason": "stalling", "game": game.pk})

    assert response.status_code == 201
    assert Report.objects.get().user == alice


@pytest.mark.usefixtures("tictactoe")
def test_a_chat_message_is_reported(alice, bob, client_for):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    message = game_message_post(user=bob, game_id=game.pk, room="players", body="Slowpoke.")

    response = client_for(alice).post(
        "/api/v1/reports/", {"reason": "abusive_chat", "game_message": message.pk}
    )

    assert response.status_code == 201
    assert Report.objects.get().game_message == message


def test_only_my_reports_are_listed(alice, bob, carol, client_for):
    client_for(carol).post("/api/v1/reports/", {"reason": "spam", "username": "bob"})

    assert client_for(alice).get("/api/v1/reports/").json()["results"] == []


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"reason": "spam"}, 400, "no_target"),
        ({"reason": "spam", "username": "alice"}, 400, "self"),
        ({"reason": "spam", "username": "nobody"}, 404, "not_found"),
        ({"reason": "ugly", "username": "bob"}, 400, "invalid"),
        ({"reason": "spam", "username": "bob", "comment": "x" * 1001}, 400, "invalid"),
    ],
)
def test_bad_reports_get_the_error_shape(alice, bob, client_for, body, status, code):
    response = client_for(alice).post("/api/v1/reports/", body)

    assert (response.status_code, response.json()["code"]) == (status, code)
    assert not Report.objects.exists()


def test_a_duplicate_is_refused(alice, bob, client_for):
    client = client_for(alice)
    client.post("/api/v1/reports/", {"reason": "spam", "username": "bob"})

    response = client.post("/api/v1/reports/", {"reason": "spam", "username": "bob"})

    assert (response.status_code, response.json()["code"]) == (400, "duplicate")


def test_too_many_reports_wait_for_retry_after(alice, client_for, monkeypatch, rate_window_still):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "report_file", "1/day")
    client = client_for(alice)
    first, second = UserFactory.create_batch(2)
    client.post("/api/v1/reports/", {"reason": "spam", "username": first.username})

    response = client.post("/api/v1/reports/", {"reason": "spam", "username": second.username})

    assert (response.status_code, response.json()["code"]) == (429, "throttled")
    assert int(response["Retry-After"]) == response.json()["retry_after"] > 0
    assert Report.objects.count() == 1


def test_signing_in_is_required(client):
    assert client.post("/api/v1/reports/", {"reason": "spam"}).status_code in (401, 403)
