"""Driving the user admin's list, actions and pages as staff do (tests/players/test_admin*)."""

from django.contrib.messages import get_messages

CHANGELIST = "/admin/accounts/user/"
REASON = "Abusive messages in game chat, reported twice."


def change_url(user):
    return f"/admin/accounts/user/{user.pk}/change/"


def listed_usernames(response):
    return [user.username for user in response.context["cl"].result_list]


def message_texts(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


def run_action(client, action, users, **extra):
    return client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [user.pk for user in users], **extra},
        follow=True,
    )


def moderate(client, action, users, reason=REASON):
    """`action` on `users`, confirmed on its page with `reason`."""
    return run_action(client, action, users, confirm_moderation="yes", reason=reason)
