"""`manage.py demo_data`: the demo accounts of a local site, and the logins `make run` prints."""

from __future__ import annotations

from io import StringIO

import pytest
from allauth.account.models import EmailAddress
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import User

pytestmark = pytest.mark.django_db


def demo_data() -> str:
    out = StringIO()
    call_command("demo_data", stdout=out)
    return out.getvalue()


def test_it_makes_two_players_and_a_staff_admin_and_prints_their_logins(settings):
    settings.DEBUG = True

    printed = demo_data()

    assert printed.splitlines()[-1] == (
        "Demo logins (password 'greycircle'): alice, bob; admin (staff, also /admin/)"
    )
    admin = User.objects.get(username="admin")
    assert admin.is_staff
    assert admin.check_password("greycircle")
    assert not User.objects.get(username="alice").is_staff
    assert EmailAddress.objects.filter(verified=True, primary=True).count() == 3


def test_running_it_again_changes_nothing_and_still_prints_the_logins(settings):
    settings.DEBUG = True
    demo_data()

    again = demo_data()

    assert "created" not in again
    assert "admin (staff, also /admin/)" in again
    assert User.objects.count() == 3


def test_a_production_site_gets_no_demo_accounts(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError):
        demo_data()
    assert not User.objects.exists()
