"""Row ids in paths: a number no row can have is "not found", never a database error."""

import pytest

from greycircle.converters import MAX_ROW_ID

pytestmark = pytest.mark.django_db

TOO_LARGE = [str(MAX_ROW_ID + 1), "9" * 19, "1" + "0" * 30]

API_PATHS = [
    "/api/v1/games/{id}/",
    "/api/v1/games/{id}/moves/",
    "/api/v1/games/{id}/replay/",
    "/api/v1/invitations/{id}/accept/",
    "/api/v1/notifications/{id}/read/",
    "/api/v1/friends/requests/{id}/accept/",
    "/api/v1/blocks/{id}/",
]
PAGE_PATHS = ["/games/{id}/", "/games/{id}/replay/"]


@pytest.mark.parametrize("number", TOO_LARGE)
@pytest.mark.parametrize("path", API_PATHS)
def test_an_api_id_beyond_any_row_is_a_json_404(client_for, alice, path, number):
    client = client_for(alice)
    client.raise_request_exception = False
    method = client.get if path.endswith(("}/", "moves/", "replay/")) else client.post
    if path.startswith("/api/v1/blocks/"):
        method = client.delete
    response = method(path.format(id=number))
    assert response.status_code == 404, response.content
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_a_page_id_beyond_any_row_is_a_404(client, alice, path):
    client.force_login(alice)
    client.raise_request_exception = False
    assert client.get(path.format(id=MAX_ROW_ID + 1)).status_code == 404


def test_the_largest_row_id_is_still_looked_up(client_for, alice):
    response = client_for(alice).get(f"/api/v1/games/{MAX_ROW_ID}/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
