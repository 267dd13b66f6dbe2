"""The authentication backends find a session's user as Django's do, and sign-ins name them."""

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY
from django.test import Client

from accounts.backends import AuthenticationBackend, ModelBackend, user_by_pk
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("backend", [ModelBackend(), AuthenticationBackend()])
def test_a_session_user_is_found_unless_inactive_or_gone(backend, alice):
    assert backend.get_user(alice.pk) == alice
    assert backend.get_user(alice.pk + 1000) is None
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert backend.get_user(alice.pk) is None


def test_user_by_pk_reads_every_field(alice):
    found = user_by_pk(alice.pk)
    assert found.username == "alice"
    assert found.password == alice.password
    assert found.date_joined == alice.date_joined


def test_a_password_sign_in_names_one_of_these_backends(settings):
    UserFactory(username="dana")
    client = Client()
    assert client.login(username="dana", password=PASSWORD)
    assert client.session[BACKEND_SESSION_KEY] in settings.AUTHENTICATION_BACKENDS
    assert client.session[BACKEND_SESSION_KEY].startswith("accounts.backends.")
    assert client.get("/api/v1/me/").json()["username"] == "dana"
