"""The moderators' notices on every page of the signed-in player (templatetags.moderation_notices)
with their end date, and acknowledging a warning (views.notice_acknowledge): POST with CSRF."""

import pytest
from django.test import Client

from greycircle.moderation.sanctions import sanction_impose
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def moderator():
    return UserFactory(username="mod", is_staff=True)


def impose(moderator, user, kind, **options):
    return sanction_impose(
        actor=moderator, user_id=user.pk, kind=kind, reason="Staff only: insults.", **options
    )


def page(user, path="/"):
    client = Client()
    client.force_login(user)
    return client, client.get(path).content.decode()


def test_a_muted_and_barred_player_sees_both_notices_with_their_end(moderator, alice):
    mute = impose(moderator, alice, "mute", days=3, notice="Mind your words.")
    impose(moderator, alice, "rated_bar", days=30)

    _, content = page(alice, "/play/")

    assert "Your chat is muted." in content
    assert "Mind your words." in content
    assert f'datetime="{mute.until.isoformat()}"' in content
    assert f"{mute.until:%-d %B %Y, %H:%M} UTC" in content
    assert "You are barred from rated games." in content
    assert "Staff only" not in content  # the reason is never shown


def test_nobody_else_sees_a_players_notices(moderator, alice, bob):
    impose(moderator, alice, "warn", notice="Be kind.")

    assert "Be kind." not in page(bob)[1]
    assert "Be kind." not in Client().get("/").content.decode()


def test_a_warning_is_shown_until_acknowledged(moderator, alice):
    warning = impose(moderator, alice, "warn", notice="Be kind.")
    client, content = page(alice, "/play/")
    assert "A warning from the moderators." in content
    assert f"/notices/{warning.pk}/acknowledge/" in content

    answer = client.post(f"/notices/{warning.pk}/acknowledge/", {"next": "/play/"})

    assert answer.status_code == 302
    assert answer["Location"] == "/play/"
    assert "Be kind." not in client.get("/play/").content.decode()


def test_acknowledging_needs_the_csrf_token_and_ones_own_notice(moderator, alice, bob):
    warning = impose(moderator, alice, "warn", notice="Be kind.")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    other = Client()
    other.force_login(bob)

    assert strict.post(f"/notices/{warning.pk}/acknowledge/").status_code == 403
    assert other.post(f"/notices/{warning.pk}/acknowledge/").status_code == 404
    assert Client().get(f"/notices/{warning.pk}/acknowledge/").status_code == 302  # log in

    warning.refresh_from_db()
    assert warning.acknowledged_at is None


def test_acknowledging_goes_back_only_to_this_site(moderator, alice):
    warning = impose(moderator, alice, "warn")
    client = Client()
    client.force_login(alice)

    answer = client.post(f"/notices/{warning.pk}/acknowledge/", {"next": "https://evil.test/"})

    assert answer["Location"] == "/"
