"""Request bodies for the API and allauth headless: capped in size, JSON refused when too deep.

About 2 KB of `[[[...]]]` used to end in RecursionError and an HTML 500, even anonymously.
"""

import json

import pytest
from channels.testing import HttpCommunicator
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from greycircle.api.jsonlimits import MAX_DEPTH
from greycircle.api.middleware import check_request
from greycircle.asgi import application

pytestmark = pytest.mark.django_db

DEEP = ("[" * 1000 + "]" * 1000).encode()  # ~2 KB
DEEP_IN_OBJECT = b'{"username": "alice", "password": ' + DEEP + b"}"

JSON_ENDPOINTS = [
    ("post", "/api/v1/games/"),
    ("patch", "/api/v1/me/"),
    ("post", "/api/v1/games/1/moves/"),
    ("post", "/_allauth/app/v1/auth/login"),
    ("post", "/_allauth/app/v1/auth/signup"),
    ("post", "/_allauth/browser/v1/auth/login"),
    ("post", "/_allauth/browser/v1/auth/signup"),
]


def send(client, method: str, path: str, body: bytes, content_type="application/json", **extra):
    return getattr(client, method)(path, data=body, content_type=content_type, **extra)


def assert_refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["code"] == code
    assert isinstance(body["detail"], str)
    assert body["detail"]
    return body


@pytest.mark.parametrize(("method", "path"), JSON_ENDPOINTS)
@pytest.mark.parametrize("body", [DEEP, DEEP_IN_OBJECT], ids=["bare", "in-object"])
def test_deep_json_is_refused_with_400_even_anonymously(method, path, body):
    response = send(Client(), method, path, body)
    assert_refused(response, 400, "too_deep")


@pytest.mark.parametrize(("method", "path"), JSON_ENDPOINTS[:3])
def test_deep_json_is_refused_for_a_signed_in_user(alice, client_for, method, path):
    response = send(client_for(alice), method, path, DEEP)
    assert_refused(response, 400, "too_deep")


def test_allauth_refusals_also_carry_allauths_error_shape():
    body = assert_refused(
        send(Client(), "post", "/_allauth/app/v1/auth/login", DEEP), 400, "too_deep"
    )
    assert body["status"] == 400
    assert body["errors"] == [{"code": "too_deep", "message": body["detail"]}]


def test_allauth_parses_bodies_whatever_their_type_so_they_are_all_checked():
    response = send(Client(), "post", "/_allauth/app/v1/auth/login", DEEP, "text/plain")
    assert_refused(response, 400, "too_deep")


def test_json_as_deep_as_allowed_reaches_the_view(alice, client_for):
    nested = json.dumps({"show_helpers": json.loads("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))})
    response = send(client_for(alice), "patch", "/api/v1/me/", nested.encode())
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"  # the serializer's answer, not ours


def test_a_ten_megabyte_body_answers_413_in_the_error_shape_without_echoing_it(alice, client_for):
    huge = b'{"kind": "' + b"x" * (10 * 1024 * 1024) + b'"}'
    for client in (Client(), client_for(alice)):
        response = send(client, "post", "/api/v1/games/", huge)
        body = assert_refused(response, 413, "too_large")
        assert len(response.content) < 300
        assert "xxxx" not in body["detail"]
    response = send(Client(), "post", "/_allauth/app/v1/auth/signup", huge)
    assert_refused(response, 413, "too_large")


def test_the_cap_applies_to_any_body_under_the_api(settings):
    settings.API_MAX_BODY_BYTES = 1000
    response = Client().post("/api/v1/games/", {"kind": "x" * 2000})  # multipart
    assert_refused(response, 413, "too_large")


def test_a_body_larger_than_its_content_length_says_is_refused(settings):
    settings.API_MAX_BODY_BYTES = 1000
    request = RequestFactory().post(
        "/api/v1/games/", data=b"[" + b"1," * 1000 + b"1]", content_type="application/json"
    )
    del request.META["CONTENT_LENGTH"]  # as with Transfer-Encoding: chunked
    response = check_request(request)
    assert response.status_code == 413
    assert json.loads(response.content)["code"] == "too_large"


def test_malformed_json_for_allauth_answers_a_json_400():
    for body in (b'{"username": "alice", ', b"\xff\xfe", b'["not", "an", "object"]'):
        response = send(Client(), "post", "/_allauth/app/v1/auth/login", body)
        assert_refused(response, 400, "parse_error")


def test_malformed_json_for_the_api_is_left_to_drf(alice, client_for):
    response = send(client_for(alice), "post", "/api/v1/games/", b'{"kind": ')
    assert_refused(response, 400, "parse_error")


def test_ordinary_requests_pass(alice, client_for):
    response = APIClient().post(
        "/_allauth/app/v1/auth/login",
        {"username": "alice", "password": "correct-horse-battery"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert client_for(alice).patch("/api/v1/me/", {"show_helpers": False}).status_code == 200


def test_other_paths_are_not_touched(settings):
    settings.API_MAX_BODY_BYTES = 10
    request = RequestFactory().post("/accounts/login/", data={"login": "x" * 100})
    assert check_request(request) is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_deep_json_is_refused_through_the_asgi_application():
    communicator = HttpCommunicator(
        application,
        "POST",
        "/api/v1/games/",
        body=DEEP,
        headers=[(b"content-type", b"application/json"), (b"host", b"testserver")],
    )
    response = await communicator.get_response(timeout=10)
    assert response["status"] == 400
    assert json.loads(response["body"])["code"] == "too_deep"
