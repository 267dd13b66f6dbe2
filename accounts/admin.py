"""Staff find users and their settings here, and look up friend requests, friendships and
blocks, read-only: only players make and end them.

The user's page shows every notification preference read-only, as the player's settings page
groups them (one row per kind of notification, a column per channel it is really sent on, then
when push and e-mail wait), so that staff can answer "why do I get no push?" at a glance. The
preferences are fields of User (greycircle.notifications.preferences says why), so accounts
shows them itself. Staff may still change the e-mail ones, when the player asks them to; the
rest only the player changes.

The user's page here is the account alone; greycircle.players.admin extends it (and takes its
place) with the user's games and the moderation log, and records every moderation action.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst

from accounts.forms import CHANNEL_LABELS, KIND_LABELS
from accounts.models import Block, FriendRequest, Friendship, User
from greycircle.admin_base import ReadOnlyAdmin

# When push and e-mail wait, and the digest: the preferences outside the grid, as Settings words
# them under it.
AWAY_PREFERENCES = ("push_only_away", "email_only_away", "email_digest")


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ("username", "email", "is_active", "is_staff", "date_joined", "last_login")
    list_filter = ("is_active", "is_staff", "date_joined")
    search_fields = ("username", "email")
    search_help_text = "Search by username or e-mail address."
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (
            "Settings",
            {"fields": ("show_helpers", "confirm_moves")},
        ),
        (
            "Notification preferences",
            {
                "fields": ("notification_preferences",),
                "description": "As the player chose them in their settings; only they change "
                "them (the e-mail ones also below).",
            },
        ),
        (
            "E-mail preferences",
            {
                "fields": User.EMAIL_PREFERENCES,
                "description": "Changed here only when the player asks.",
            },
        ),
    )
    readonly_fields = ("last_login", "date_joined", "notification_preferences")

    @admin.display(description="notification preferences")
    def notification_preferences(self, user: User) -> str:
        """The settings page's grid, read-only: "on", "off", or "—" where a kind is never sent
        on a channel; then when push and e-mail wait, and the daily digest."""

        def cell(name: str | None) -> tuple[str, str]:
            if name is None:
                return "", "—"
            return name, "on" if getattr(user, name) else "off"

        head = format_html_join("", "<th>{}</th>", ((label,) for label in CHANNEL_LABELS.values()))
        rows = format_html_join(
            "",
            "<tr><td>{}</td>{}</tr>",
            (
                (
                    KIND_LABELS[kind],
                    format_html_join(
                        "",
                        '<td data-preference="{}">{}</td>',
                        (cell(channels.get(channel)) for channel in CHANNEL_LABELS),
                    ),
                )
                for kind, channels in User.NOTIFICATION_CHANNELS.items()
            ),
        )
        away = format_html_join(
            "",
            '<tr><td>{}</td><td data-preference="{}">{}</td></tr>',
            (
                (
                    capfirst(str(User._meta.get_field(name).verbose_name)),
                    *cell(name),
                )
                for name in AWAY_PREFERENCES
            ),
        )
        return format_html(
            '<table class="notification-preferences"><thead><tr><th>Notification</th>{}</tr>'
            "</thead><tbody>{}</tbody></table>"
            '<table class="notification-preferences"><tbody>{}</tbody></table>',
            head,
            rows,
            away,
        )


class SearchOnlyAdmin(ReadOnlyAdmin):
    """Staff find and look at these, nothing more: only players make and end them (through
    accounts.friends, which keeps the rules about who may befriend whom). A block protects a
    player, so staff never lift one; a user's rows go with the user when staff delete them."""


@admin.register(Friendship)
class FriendshipAdmin(SearchOnlyAdmin):
    list_display = ("user", "friend", "created_at")
    list_filter = ("created_at",)
    search_fields = ("user__username", "friend__username")
    search_help_text = "Search by either user's username. Each friendship shows once per side."
    list_select_related = ("user", "friend")
    date_hierarchy = "created_at"


@admin.register(FriendRequest)
class FriendRequestAdmin(SearchOnlyAdmin):
    list_display = ("from_user", "to_user", "created_at")
    list_filter = ("created_at",)
    search_fields = ("from_user__username", "to_user__username")
    search_help_text = "Search by the sender's or the recipient's username."
    list_select_related = ("from_user", "to_user")
    date_hierarchy = "created_at"


@admin.register(Block)
class BlockAdmin(SearchOnlyAdmin):
    list_display = ("blocker", "blocked", "created_at")
    list_filter = ("created_at",)
    search_fields = ("blocker__username", "blocked__username")
    search_help_text = "Search by the blocking or the blocked user's username."
    list_select_related = ("blocker", "blocked")
    date_hierarchy = "created_at"
