"""Browser pages of accounts: allauth's forms (site-styled) and the settings page, with CSRF on."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.test import Client

from accounts import guests
from accounts.models import User
from accounts.services import SETTINGS_FIELDS
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-long-pass-phrase"


@pytest.fixture
def browser_client() -> Client:
    """A client that checks CSRF like a browser's requests are checked."""
    return Client(enforce_csrf_checks=True)


def post_form(client: Client, url: str, data: dict, *, form_url: str | None = None):
    """GET the page holding the form (for the CSRF cookie), then POST it with the token."""
    page = client.get(form_url or url)
    assert page.status_code == 200, page
    token = client.cookies["csrftoken"].value
    return client.post(url, {"csrfmiddlewaretoken": token, **data})


def signup(client: Client, username: str, email: str, password: str = NEW_PASSWORD):
    return post_form(
        client,
        "/accounts/signup/",
        {"username": username, "email": email, "password1": password, "password2": password},
    )


def login(client: Client, login_as: str, password: str = PASSWORD):
    return post_form(client, "/accounts/login/", {"login": login_as, "password": password})


def signed_in_username(client: Client) -> str | None:
    user_id = client.session.get("_auth_user_id")
    return User.objects.get(pk=user_id).username if user_id else None


# --- Sign up ------------------------------------------------------------------------------------


def test_sign_up_creates_the_user_and_signs_them_in(browser_client):
    response = signup(browser_client, "Dora", "dora@example.com")

    assert response.status_code == 302
    assert response.url == "/"
    user = User.objects.get(username="Dora")
    assert user.check_password(NEW_PASSWORD)
    assert user.email == "dora@example.com"
    assert EmailAddress.objects.filter(user=user, email="dora@example.com", primary=True).exists()
    assert signed_in_username(browser_client) == "Dora"
    home = browser_client.get("/")
    assert "Hello, Dora" in home.content.decode()


def test_sign_up_refuses_a_username_that_differs_only_in_case(browser_client, alice):
    response = signup(browser_client, "Alice", "other-alice@example.com")

    assert response.status_code == 200
    form = response.context["form"]
    assert form.errors["username"] == ["A user with that username already exists."]
    assert "A user with that username already exists." in response.content.decode()
    assert User.objects.filter(username__iexact="alice").count() == 1
    assert signed_in_username(browser_client) is None


def test_sign_up_with_an_e_mail_address_already_in_use_reveals_nothing(browser_client):
    # ACCOUNT_PREVENT_ENUMERATION = "strict": answered like any sign-up (see
    # test_signup_enumeration.py); only a verified address is unique.
    assert signup(browser_client, "dora", "dora@example.com").status_code == 302
    other = Client(enforce_csrf_checks=True)

    response = signup(other, "dorothy", "DORA@example.com")

    assert response.status_code == 302
    assert response.url == "/"
    assert signed_in_username(other) == "dorothy"


def test_sign_up_without_the_csrf_token_is_forbidden(browser_client):
    response = browser_client.post(
        "/accounts/signup/",
        {
            "username": "mallory",
            "email": "mallory@example.com",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
        },
    )
    assert response.status_code == 403
    assert not User.objects.filter(username="mallory").exists()


# --- Log in and out ------------------------------------------------------------------------------


def test_log_in_by_username(browser_client, alice):
    response = login(browser_client, "alice")
    assert response.status_code == 302
    assert response.url == "/"
    assert signed_in_username(browser_client) == "alice"


def test_log_in_by_username_ignores_case(browser_client, alice):
    assert login(browser_client, "ALICE").status_code == 302
    assert signed_in_username(browser_client) == "alice"


def test_log_in_by_e_mail(browser_client, alice):
    response = login(browser_client, "alice@example.com")
    assert response.status_code == 302
    assert signed_in_username(browser_client) == "alice"


def test_log_in_by_e_mail_of_a_user_who_signed_up_in_the_browser(browser_client):
    signup(browser_client, "dora", "dora@example.com")
    browser_client.post(
        "/accounts/logout/", {"csrfmiddlewaretoken": browser_client.cookies["csrftoken"].value}
    )
    fresh = Client(enforce_csrf_checks=True)

    assert login(fresh, "dora@example.com", NEW_PASSWORD).status_code == 302
    assert signed_in_username(fresh) == "dora"


def test_log_in_with_a_wrong_password_shows_an_error(browser_client, alice):
    response = login(browser_client, "alice", "not-the-password")
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [
        "The username and/or password you specified are not correct."
    ]
    assert "are not correct" in response.content.decode()
    assert signed_in_username(browser_client) is None


def test_log_out(browser_client, alice):
    login(browser_client, "alice")

    response = post_form(browser_client, "/accounts/logout/", {}, form_url="/")

    assert response.status_code == 302
    assert response.url == "/"
    assert signed_in_username(browser_client) is None
    assert "Log in" in browser_client.get("/").content.decode()


# --- Password reset ------------------------------------------------------------------------------


def test_password_reset_sends_an_e_mail_whose_link_sets_a_new_password(
    browser_client, alice, mailoutbox
):
    response = post_form(
        browser_client, "/accounts/password/reset/", {"email": "alice@example.com"}
    )
    assert response.status_code == 302
    assert response.url == "/accounts/password/reset/done/"
    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == ["alice@example.com"]
    assert "Password Reset" in message.subject
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)", message.body)
    assert link, message.body

    # The key URL stores the key in the session and redirects to the form without it.
    form_page = browser_client.get(link.group(1), follow=True)
    assert form_page.status_code == 200
    assert "password1" in form_page.context["form"].fields
    form_url = form_page.redirect_chain[-1][0]
    token = browser_client.cookies["csrftoken"].value
    done = browser_client.post(
        form_url,
        {"csrfmiddlewaretoken": token, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert done.status_code == 302
    assert done.url == "/accounts/password/reset/key/done/"

    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)
    fresh = Client(enforce_csrf_checks=True)
    assert login(fresh, "alice", NEW_PASSWORD).status_code == 302


def test_password_reset_for_an_unknown_address_reveals_nothing(browser_client, mailoutbox):
    response = post_form(browser_client, "/accounts/password/reset/", {"email": "who@example.com"})
    assert response.status_code == 302
    assert response.url == "/accounts/password/reset/done/"
    # allauth tells the address's owner that there is no account, and links no reset key.
    assert len(mailoutbox) == 1
    assert "/accounts/password/reset/key/" not in mailoutbox[0].body


# --- allauth's pages render in the site's layout ------------------------------------------------


@pytest.mark.parametrize(
    ("url", "title", "heading"),
    [
        ("/accounts/login/", "Sign In", "Sign In"),
        ("/accounts/signup/", "Signup", "Sign Up"),
        ("/accounts/password/reset/", "Password Reset", "Password Reset"),
        ("/accounts/password/reset/done/", "Password Reset", "Password Reset"),
    ],
)
def test_entrance_pages_use_the_site_layout(client, url, title, heading):
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="site-header"' in html
    assert "frontend/site.css" in html
    assert "accounts/account.css" in html
    assert 'class="page page--entrance"' in html
    assert re.search(rf'<h1 class="page-title">\s*{heading}\s*</h1>', html)
    assert re.search(rf"<title>\s*{title}\s*· Grey Circle Games</title>", html)


@pytest.mark.parametrize(
    ("url", "title"),
    [
        ("/accounts/email/", "Email Addresses"),
        ("/accounts/password/change/", "Change Password"),
        ("/accounts/logout/", "Sign Out"),
    ],
)
def test_account_pages_use_the_site_layout_with_the_account_menu(client, alice, url, title):
    client.force_login(alice)
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="site-header"' in html
    assert 'class="page page--manage"' in html
    assert "accounts/account.css" in html
    assert 'aria-label="Account"' in html
    assert re.search(rf'<h1 class="page-title">\s*{title}\s*</h1>', html)


def test_login_page_labels_its_fields_and_styles_its_button(client):
    html = client.get("/accounts/login/").content.decode()
    assert '<label class="field__label" for="id_login">Username or email</label>' in html
    assert '<label class="field__label" for="id_password">Password</label>' in html
    assert re.search(
        r'<button class="button button--primary" type="submit">\s*Sign In\s*</button>', html
    )


def test_password_change_through_the_site(browser_client, alice):
    login(browser_client, "alice")
    response = post_form(
        browser_client,
        "/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)
    # Changing the password keeps the user signed in (ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False).
    assert signed_in_username(browser_client) == "alice"


# --- Settings ------------------------------------------------------------------------------------


def test_settings_page_requires_login(client):
    response = client.get("/settings/")
    assert response.status_code == 302
    assert response.url == "/accounts/login/?next=/settings/"


def test_anonymous_settings_post_is_redirected_and_changes_nothing(client, alice):
    response = client.post("/settings/", {"show_helpers": ""})
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/")
    alice.refresh_from_db()
    assert alice.show_helpers is True


def test_settings_page_shows_the_current_settings(client, alice):
    alice.email_your_turn = True
    alice.email_reminder = False
    alice.save()
    client.force_login(alice)

    response = client.get("/settings/")

    assert response.status_code == 200
    form = response.context["form"]
    assert tuple(form.fields) == SETTINGS_FIELDS
    assert form["show_helpers"].value() is True
    assert form["email_your_turn"].value() is True
    assert form["email_reminder"].value() is False
    html = response.content.decode()
    show_helpers = re.search(r'<input type="checkbox" name="show_helpers"[^>]*>', html).group(0)
    assert 'id="id_show_helpers"' in show_helpers
    assert "checked" in show_helpers
    reminder = re.search(r'<input type="checkbox" name="email_reminder"[^>]*>', html).group(0)
    assert "checked" not in reminder
    assert '<label class="field__label" for="id_show_helpers">Show helpers</label>' in html
    assert 'href="/accounts/password/change/"' in html
    assert 'href="/accounts/email/"' in html


def test_settings_post_saves_every_field_and_says_so(browser_client, alice):
    login(browser_client, "alice")
    # A checkbox left unticked is simply absent from the POST.
    response = post_form(
        browser_client,
        "/settings/",
        {
            "email_your_turn": "on",
            "email_game_over": "on",
            "accept_invitations_from_anyone": "on",
            "confirm_moves": "on",
        },
    )

    assert response.status_code == 302
    assert response.url == "/settings/"
    alice.refresh_from_db()
    assert {name: getattr(alice, name) for name in SETTINGS_FIELDS} == {
        "show_helpers": False,
        "confirm_moves": True,
        "accept_invitations_from_anyone": True,
        "chat_enabled": False,
        **dict.fromkeys(User.NOTIFICATION_PREFERENCES, False),
        "email_your_turn": True,
        "email_game_over": True,
    }
    page = browser_client.get(response.url)
    assert "Your settings have been saved." in page.content.decode()
    assert page.context["form"]["show_helpers"].value() is False

    post_form(browser_client, "/settings/", {"show_helpers": "on"})
    alice.refresh_from_db()
    assert alice.show_helpers is True


def test_settings_post_leaves_other_users_alone(client, alice, bob):
    client.force_login(alice)
    client.post("/settings/", {})
    bob.refresh_from_db()
    assert bob.show_helpers is True
    assert bob.email_friend_request is True


def test_a_guests_settings_say_what_an_account_gives_instead_of_invitations(client):
    guest = guests.guest_create()
    client.force_login(guest)

    response = client.get("/settings/")

    # Nor of friends and invitations, which never reach a guest, nor any e-mail.
    assert tuple(response.context["form"].fields) == (
        "show_helpers",
        "confirm_moves",
        "chat_enabled",
        "inbox_your_turn",
        "push_your_turn",
        "inbox_game_over",
        "push_game_over",
        "inbox_reminder",
        "push_reminder",
        "inbox_time_running_out",
        "push_time_running_out",
        "inbox_moderation_notice",
        "push_moderation_notice",
        "inbox_report_handled",
        "push_report_handled",
        "push_only_away",
    )
    html = response.content.decode()
    assert "Anyone may invite me" not in html
    assert "Nobody can invite a guest to a game." in html
    assert 'href="/account/upgrade/">Create an account</a>' in html
    # Saving the settings a guest has leaves the invitation setting as it was.
    assert client.post("/settings/", {"show_helpers": "on"}).status_code == 302
    guest.refresh_from_db()
    assert guest.accept_invitations_from_anyone is False


def test_a_full_accounts_settings_keep_the_invitation_setting(client, alice):
    client.force_login(alice)

    html = client.get("/settings/").content.decode()

    assert "Anyone may invite me to a game" in html
    assert "data-guest-note" not in html
