"""Usernames are stored NFKC-normalised, and no two users have usernames that look alike."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import LOOKALIKE_USERNAME, User
from accounts.usernames import prototypes, username_skeleton
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase"
CYRILLIC_ALICE = "\u0430lice"  # Cyrillic small a
FULL_WIDTH_ALICE = "\uff41\uff4c\uff49\uff43\uff45"


def browser_signup(username: str, email: str):
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/signup/")
    return client.post(
        "/accounts/signup/",
        {
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
            "username": username,
            "email": email,
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


def app_signup(username: str, email: str):
    return APIClient().post(
        "/_allauth/app/v1/auth/signup",
        {"username": username, "email": email, "password": PASSWORD},
        format="json",
    )


# --- the skeleton ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lookalike",
    [CYRILLIC_ALICE, FULL_WIDTH_ALICE, "aIice", "a1ice", "\u0410lice", "alic\u0435"],
)
def test_look_alikes_share_a_skeleton(lookalike):
    assert username_skeleton(lookalike) == username_skeleton("alice")


@pytest.mark.parametrize("other", ["alice2", "alicia", "bob", "malice"])
def test_different_names_have_different_skeletons(other):
    assert username_skeleton(other) != username_skeleton("alice")


def test_the_table_is_unicodes_confusables_txt():
    table = prototypes()
    assert len(table) > 6000
    assert table["\u0430"] == "a"  # CYRILLIC SMALL LETTER A
    assert table["1"] == "l"


# --- sign-up --------------------------------------------------------------------------------------


@pytest.mark.parametrize("lookalike", [CYRILLIC_ALICE, FULL_WIDTH_ALICE])
def test_browser_signup_refuses_a_look_alike(alice, lookalike):
    response = browser_signup(lookalike, "mallory@example.com")

    assert response.status_code == 200
    errors = response.context["form"].errors["username"]
    assert errors in (
        [LOOKALIKE_USERNAME],
        ["A user with that username already exists."],  # full width: NFKC makes it "alice"
    )
    assert not User.objects.filter(email="mallory@example.com").exists()


@pytest.mark.parametrize("lookalike", [CYRILLIC_ALICE, FULL_WIDTH_ALICE, "AIice"])
def test_app_signup_refuses_a_look_alike_with_a_username_error(alice, lookalike):
    response = app_signup(lookalike, "mallory@example.com")

    assert response.status_code == 400, response.content
    [error] = response.json()["errors"]
    assert error["param"] == "username"
    assert error["message"] in (LOOKALIKE_USERNAME, "A user with that username already exists.")
    assert User.objects.count() == 1


def test_the_cyrillic_look_alike_gets_the_look_alike_message(alice):
    [error] = app_signup(CYRILLIC_ALICE, "mallory@example.com").json()["errors"]
    assert error == {
        "message": LOOKALIKE_USERNAME,
        "code": "username_lookalike",
        "param": "username",
    }


def test_a_different_name_is_allowed(alice):
    response = browser_signup("alice2", "alice2@example.com")
    assert response.status_code == 302
    assert User.objects.get(username="alice2").username_skeleton == "alice2"


def test_signup_stores_the_nfkc_form():
    response = app_signup("\uff44\uff4f\uff52\uff41", "dora@example.com")  # full-width "dora"
    assert response.status_code == 200, response.content
    user = User.objects.get(email="dora@example.com")
    assert user.username == "dora"
    assert user.username_skeleton == "dora"


# --- the column ---------------------------------------------------------------------------------


def test_the_skeleton_is_kept_up_to_date_on_save(alice):
    assert alice.username_skeleton == "alice"
    alice.username = "Alicia"
    alice.save(update_fields=["username"])
    alice.refresh_from_db()
    assert alice.username_skeleton == "alicia"
    alice.show_helpers = False
    alice.save(update_fields=["show_helpers"])
    assert User.objects.get(pk=alice.pk).username_skeleton == "alicia"


def test_the_database_refuses_a_look_alike_that_slips_past_validation(alice):
    """Two sign-ups that race both pass validation; the unique constraint stops the second."""
    with pytest.raises(IntegrityError), transaction.atomic():
        UserFactory(username=CYRILLIC_ALICE)


def test_users_created_in_the_admin_get_the_skeleton_and_the_check(alice):
    staff = UserFactory(username="staffer", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)
    form = {"username": "", "password1": PASSWORD, "password2": PASSWORD, "usable_password": "true"}

    refused = client.post("/admin/accounts/user/add/", {**form, "username": CYRILLIC_ALICE})
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors["username"] == [LOOKALIKE_USERNAME]

    created = client.post("/admin/accounts/user/add/", {**form, "username": "Erin"})
    assert created.status_code == 302, created.context["adminform"].form.errors
    assert User.objects.get(username="Erin").username_skeleton == "erin"


def test_createsuperuser_style_creation_gets_the_skeleton():
    user = User.objects.create_user("\uff26\uff52\uff41\uff4e\uff4b", password=PASSWORD)
    assert user.username == "Frank"
    assert user.username_skeleton == "frank"


# --- the data migration ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_skeletons_and_survives_existing_look_alikes():
    executor = MigrationExecutor(connection)
    executor.migrate([("accounts", "0001_initial")])
    old_apps = executor.loader.project_state([("accounts", "0001_initial")]).apps
    OldUser = old_apps.get_model("accounts", "User")
    OldUser.objects.create(username="alice")
    OldUser.objects.create(username=CYRILLIC_ALICE)  # existed before the rule
    OldUser.objects.create(username="bob")
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
        skeletons = dict(User.objects.values_list("username", "username_skeleton"))
        assert skeletons == {"alice": "alice", CYRILLIC_ALICE: None, "bob": "bob"}
        # The grandfathered look-alike can still be saved (e.g. at log-in).
        grandfathered = User.objects.get(username=CYRILLIC_ALICE)
        grandfathered.first_name = "Mallory"
        grandfathered.save()
    finally:
        User.objects.all().delete()
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
