"""Every API error is JSON in one shape, also those Django answers before any API view runs."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.errors import AccountNotFound
from greycircle.games.errors import GameConflict
from greycircle.notifications.errors import NotificationNotFound

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    ["/api/v1/games/abc/", "/api/v1/games/1/nothing/", "/api/v1/nothing/", "/_allauth/nothing"],
)
def test_a_path_no_api_route_matches_is_a_json_404(alice, client_for, path):
    response = client_for(alice).get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"code": "not_found", "detail": "Not found."}


def test_a_page_that_does_not_exist_is_still_html(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_page_that_does_not_exist_is_the_sites_own_with_its_navigation(alice, client_for):
    visitor = Client().get("/no-such-page/").content.decode()
    player = client_for(alice).get("/no-such-page/").content.decode()

    for page in (visitor, player):
        assert "<title>Page not found · Grey Circle Games</title>" in page
        assert '<nav class="site-nav" aria-label="Main">' in page
        assert '<h1 class="page-title" id="error-title">Page not found</h1>' in page
        assert "frontend/errors.css" in page
    assert ">Log in</a>" in visitor
    assert ">My games</a>" in player
    assert ">Log out</button>" in player


def test_a_crash_outside_the_api_is_the_sites_page_with_the_users_navigation(alice, rf):
    from greycircle.api.handlers import server_error

    request = rf.get("/games/1/")
    request.user = alice

    page = server_error(request).content.decode()

    assert "<title>Something went wrong · Grey Circle Games</title>" in page
    assert '<nav class="site-nav" aria-label="Main">' in page
    assert ">Log out</button>" in page


def test_the_error_page_needs_no_database_when_that_is_what_failed(rf):
    from django.db import OperationalError
    from django.utils.functional import SimpleLazyObject

    from greycircle.api.handlers import server_error

    def user():
        raise OperationalError("the database is down")

    request = rf.get("/games/1/")
    request.user = SimpleLazyObject(user)  # as the session's user is read: lazily

    response = server_error(request)

    assert response.status_code == 500
    page = response.content.decode()
    assert '<h1 class="page-title" id="error-title">Something went wrong</h1>' in page
    assert ">Log in</a>" in page  # a visitor's navigation: nothing read from the database


def test_a_crash_in_the_api_answers_json_500(alice, client_for, monkeypatch):
    from greycircle.games import selectors

    def crash(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(selectors, "game_get", crash)
    client = client_for(alice)
    client.raise_request_exception = False
    response = client.get("/api/v1/games/1/")
    assert response.status_code == 500
    assert response.json()["code"] == "server_error"
    assert b"secret internals" not in response.content


def test_a_crash_outside_the_api_is_an_html_page(rf):
    from greycircle.api.handlers import server_error

    response = server_error(rf.get("/games/1/"))
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")


def test_a_suspicious_request_to_the_api_answers_json_400(rf):
    from django.core.exceptions import SuspiciousOperation

    from greycircle.api.handlers import bad_request

    response = bad_request(rf.get("/api/v1/games/"), SuspiciousOperation("no"))
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"kind=tictactoe&seats=", "application/x-www-form-urlencoded"),
        (b"--xyz\r\nContent-Disposition: form-data; name=", "multipart/form-data; boundary=xyz"),
        (b"--broken", "multipart/form-data"),
        (b"{}", "text/plain"),
    ],
    ids=["form", "broken-multipart", "multipart-without-boundary", "text"],
)
def test_only_json_bodies_are_accepted(alice, client_for, body, content_type):
    response = client_for(alice).generic("POST", "/api/v1/games/", body, content_type=content_type)
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


def test_an_unsupported_media_type_is_not_echoed_in_full(alice, client_for):
    content_type = "application/x-" + "a" * 5_000
    response = client_for(alice).generic("POST", "/api/v1/games/", b"{}", content_type=content_type)
    assert response.status_code == 415
    assert len(response.content) < 1_000


def test_an_invalid_session_token_is_401_in_the_api_shape():
    response = APIClient().get("/api/v1/games/", headers={"X-Session-Token": "forged"})
    assert response.status_code == 401
    assert set(response.json()) == {"code", "detail"}


@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unknown_api_path_is_a_json_404_with_debug_on_too(settings, client, method):
    settings.DEBUG = True  # Django then answers unmatched paths itself, unless a route matches
    response = getattr(client, method)("/api/v1/games/abc/")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "detail": "Not found."}


@pytest.mark.parametrize("error_class", [AccountNotFound, GameConflict, NotificationNotFound])
def test_a_services_refusal_answers_its_status_in_the_error_shape(error_class):
    from greycircle.api.errors import exception_handler

    response = exception_handler(error_class("refused", "Not like this.", seq=3), {})

    assert response.status_code == error_class.status
    assert response.data == {"code": "refused", "detail": "Not like this.", "seq": 3}
