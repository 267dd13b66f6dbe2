"""The error shape as the schema documents it: `fields` of real validation errors, nested ones
included, match the `FieldErrors` component."""

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator

from accounts.models import User

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def field_errors_validator():
    components = SchemaGenerator().get_schema(request=None, public=True)["components"]
    error = components["schemas"]["Error"]["properties"]["fields"]
    assert error["allOf"] == [{"$ref": "#/components/schemas/FieldErrors"}]
    schema = {"allOf": [{"$ref": "#/components/schemas/FieldErrors"}], "components": components}
    return jsonschema.Draft4Validator(schema)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        # a nested list of objects: one entry per seat
        ("/api/v1/games/", {"kind": "circles", "seats": [{"user": "nobody"}]}),
        # a plain field, a list's member, a map's value
        ("/api/v1/games/", {"kind": "circles", "seats": "all", "options": []}),
        ("/api/v1/games/1/moves/", {"expected_version": "x", "move": []}),
        ("/api/v1/games/", {"kind": "cirkis", "options": {"center_ring": "maybe"}}),
        ("/api/v1/me/upgrade/", {"username": "", "email": "no", "password": ""}),
    ],
)
def test_validation_errors_match_field_errors(
    client_for, alice, field_errors_validator, path, body
):
    User.objects.filter(pk=alice.pk).update(is_guest=True)
    alice.refresh_from_db()

    response = client_for(alice).post(path, body)

    assert response.status_code == 400, response.content
    fields = response.json()["fields"]
    assert fields
    field_errors_validator.validate(fields)


def test_the_documented_example_is_what_the_api_sends(client_for, alice, field_errors_validator):
    response = client_for(alice).post(
        "/api/v1/games/", {"kind": "circles", "seats": [{"user": "nobody"}]}
    )
    assert response.json()["fields"] == {"seats": [{"user": ["No player is called nobody."]}]}
    field_errors_validator.validate({"seats": [{}, {"user": ["x"]}], "options": {"a": ["y"]}})
    for wrong in ({"seats": "x"}, {"seats": [1]}, {"seats": {"0": 5}}):
        with pytest.raises(jsonschema.ValidationError):
            field_errors_validator.validate(wrong)
