"""Fixtures for the accounts tests: a member of staff, signed in to the admin."""

import pytest
from django.test import Client

from tests.factories import UserFactory


@pytest.fixture
def staff():
    return UserFactory(username="staffer", is_staff=True, is_superuser=True)


@pytest.fixture
def admin_client(staff):
    client = Client()
    client.force_login(staff)
    return client
