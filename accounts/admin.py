"""Staff find users and their settings here, and look up friend requests, friendships and
blocks, read-only: only players make and end them.

The user's page here is the account alone; greycircle.players.admin extends it (and takes its
place) with the user's games and the moderation log, and records every moderation action.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.models import Block, FriendRequest, Friendship, User
from greycircle.admin_base import ReadOnlyAdmin


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
            "E-mail preferences",
            {"fields": User.EMAIL_PREFERENCES},
        ),
    )
    readonly_fields = ("last_login", "date_joined")


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
