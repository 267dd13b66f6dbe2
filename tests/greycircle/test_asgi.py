"""The ASGI application: HTTP runs Django's WSGI handler on threads; a chunked body (no
Content-Length) is read whole first, within Django's cap on bodies."""

import json

import pytest
from channels.testing import HttpCommunicator

from greycircle.asgi import application

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


async def post_without_length(path: str, body: bytes) -> dict:
    communicator = HttpCommunicator(
        application, "POST", path, body=body, headers=[(b"host", b"testserver")]
    )
    return await communicator.get_response(timeout=10)


async def test_a_body_sent_without_its_length_still_reaches_django(settings):
    settings.API_MAX_BODY_BYTES = 10
    response = await post_without_length("/api/v1/games/", json.dumps({"kind": "x" * 40}).encode())
    # The API's own limit read the body: Django saw all of it, not an empty request.
    assert response["status"] == 413
    assert json.loads(response["body"])["code"] == "too_large"


async def test_a_body_over_the_cap_sent_without_its_length_is_refused(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    response = await post_without_length("/api/v1/games/", b"x" * 101)
    assert response["status"] == 413


async def test_a_get_answers_through_the_wsgi_handler():
    communicator = HttpCommunicator(
        application, "GET", "/api/v1/games/1/", headers=[(b"host", b"testserver")]
    )
    response = await communicator.get_response(timeout=10)
    assert response["status"] == 401
