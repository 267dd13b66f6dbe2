"""The OpenAPI schema builds, validates without warnings and documents how apps authenticate."""

import pytest
import yaml
from django.core.management import call_command


@pytest.mark.django_db
def test_the_schema_validates_and_declares_the_session_token(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    schema = yaml.safe_load(target.read_text())
    assert schema["components"]["securitySchemes"]["sessionToken"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Session-Token",
        "description": schema["components"]["securitySchemes"]["sessionToken"]["description"],
    }
    assert "/api/v1/games/{id}/moves/" in schema["paths"]
    assert "/api/v1/me/" in schema["paths"]


@pytest.mark.django_db
def test_the_docs_page_and_schema_are_served(client):
    assert client.get("/api/schema/").status_code == 200
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()
