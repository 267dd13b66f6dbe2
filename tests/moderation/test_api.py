"""`/api/v1/me/`'s `sanctions`: the moderators' sanctions in force on me, typed, never another
player's and never staff's reason; acknowledging a warning from an app."""

from datetime import timedelta

import pytest
from django.utils import timezone

from greycircle.moderation.models import Sanction
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


def test_me_lists_my_sanctions_in_force(moderator, alice, bob, client_for):
    mute = impose(moderator, alice, "mute", days=2, notice="Mind your words.")
    warning = impose(moderator, alice, "warn")
    ended = impose(moderator, alice, "rated_bar", days=1)
    Sanction.objects.filter(pk=ended.pk).update(until=timezone.now() - timedelta(seconds=1))

    me = client_for(alice).get("/api/v1/me/").json()

    assert me["sanctions"] == [
        {"id": warning.pk, "kind": "warn", "notice": warning.notice, "until": None},
        {
            "id": mute.pk,
            "kind": "mute",
            "notice": "Mind your words.",
            "until": mute.until.isoformat().replace("+00:00", "Z"),
        },
    ]
    assert "Staff only" not in str(me)
    assert client_for(bob).get("/api/v1/me/").json()["sanctions"] == []


def test_changing_my_settings_answers_with_my_sanctions_too(moderator, alice, client_for):
    impose(moderator, alice, "warn")

    answer = client_for(alice).patch("/api/v1/me/", {"show_helpers": False}, format="json")

    assert answer.status_code == 200
    assert [sanction["kind"] for sanction in answer.json()["sanctions"]] == ["warn"]


def test_an_app_acknowledges_a_warning(moderator, alice, bob, client_for):
    warning = impose(moderator, alice, "warn")
    url = f"/api/v1/me/sanctions/{warning.pk}/acknowledge/"

    assert client_for(bob).post(url).json()["code"] == "not_found"
    answer = client_for(alice).post(url)

    assert answer.status_code == 200
    assert answer.json()["id"] == warning.pk
    assert client_for(alice).get("/api/v1/me/").json()["sanctions"] == []
