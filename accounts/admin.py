"""Staff manage users here: find them, see their settings and games, deactivate or reactivate them.

Users who have played are never deleted: their seats (`Seat.user` is PROTECT) keep the other
players' game records whole. Staff deactivate them instead: an inactive user cannot sign in, and
their existing sessions and app tokens no longer authenticate.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected as django_delete_selected
from django.contrib.admin.utils import display_for_value
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy, ngettext

from accounts.models import Block, FriendRequest, Friendship, User
from greycircle.games.models import Seat

GAMES_SHOWN = 25

CANNOT_DELETE_PLAYERS = (
    "A user who has played cannot be deleted: the games they played belong to the other players "
    "too. Deactivate them instead (untick “Active”, or use the “Deactivate selected users” action)."
)


@admin.action(
    permissions=["delete"], description=gettext_lazy("Delete selected %(verbose_name_plural)s")
)
def delete_selected(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[User]
) -> HttpResponse | None:
    """Django's bulk delete, refused up front (with a clear message) for users who have played."""
    players = list(
        queryset.filter(seats__isnull=False)
        .order_by("username")
        .values_list("username", flat=True)
        .distinct()
    )
    if players:
        modeladmin.message_user(
            request,
            f"Not deleted: {', '.join(players)} {'has' if len(players) == 1 else 'have'} played. "
            + CANNOT_DELETE_PLAYERS,
            messages.ERROR,
        )
        return None
    return django_delete_selected(modeladmin, request, queryset)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = (
        "username",
        "email",
        "is_active",
        "is_staff",
        "date_joined",
        "last_login",
        "game_count",
    )
    list_filter = ("is_active", "is_staff", "date_joined")
    search_fields = ("username", "email")
    search_help_text = "Search by username or e-mail address."
    # Named like Django's site-wide action, so this one replaces it.
    actions = [delete_selected, "deactivate_users", "reactivate_users"]
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (
            "Settings",
            {"fields": ("show_helpers",)},
        ),
        (
            "E-mail preferences",
            {"fields": User.EMAIL_PREFERENCES},
        ),
        (
            "Games",
            {"fields": ("games",), "description": CANNOT_DELETE_PLAYERS},
        ),
    )
    readonly_fields = ("last_login", "date_joined", "games")

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        # A subquery rather than Count("seats"): no GROUP BY, so actions can update() the result.
        games = (
            Seat.objects.filter(user=OuterRef("pk"))
            .order_by()
            .values("user")
            .annotate(count=Count("pk"))
            .values("count")
        )
        return (
            super()
            .get_queryset(request)
            .annotate(game_count=Coalesce(Subquery(games, output_field=IntegerField()), 0))
        )

    def has_delete_permission(self, request: HttpRequest, obj: User | None = None) -> bool:
        if obj is not None and obj.pk is not None and Seat.objects.filter(user=obj).exists():
            return False
        return super().has_delete_permission(request, obj)

    @admin.display(description="games", ordering="game_count")
    def game_count(self, user: User) -> int:
        return user.game_count

    @admin.display(description="games")
    def games(self, user: User) -> str:
        """The user's latest games, linked to their admin pages, and a link to all of them."""
        if user.pk is None:
            return "—"
        seats = Seat.objects.filter(user=user).select_related("game").order_by("-game__updated_at")
        total = seats.count()
        if not total:
            return "No games yet."
        rows = format_html_join(
            "",
            '<tr><td>{}</td><td><a href="{}">Game #{}</a></td>'
            "<td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    seat.index,
                    reverse("admin:games_game_change", args=[seat.game_id]),
                    seat.game_id,
                    seat.game.kind,
                    seat.game.get_status_display(),
                    display_for_value(seat.game.updated_at, "—"),
                )
                for seat in seats[:GAMES_SHOWN]
            ),
        )
        all_url = reverse("admin:games_game_changelist") + "?" + urlencode({"player": user.pk})
        shown = min(total, GAMES_SHOWN)
        return format_html(
            '<table class="user-games"><thead><tr><th>Seat</th><th>Game</th><th>Kind</th>'
            "<th>Status</th><th>Updated</th></tr></thead><tbody>{}</tbody></table>"
            '<p>Showing the latest {} of {}. <a href="{}">All their games</a></p>',
            rows,
            shown,
            ngettext("%(count)d game", "%(count)d games", total) % {"count": total},
            all_url,
        )

    @admin.action(description="Deactivate selected users", permissions=["change"])
    def deactivate_users(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        if queryset.filter(pk=request.user.pk).exists():
            self.message_user(
                request,
                "You cannot deactivate your own account. Nothing was changed.",
                messages.ERROR,
            )
            return
        count = self._set_active(request, queryset, active=False)
        self.message_user(
            request,
            ngettext("Deactivated %(count)d user.", "Deactivated %(count)d users.", count)
            % {"count": count},
            messages.SUCCESS,
        )

    @admin.action(description="Reactivate selected users", permissions=["change"])
    def reactivate_users(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        count = self._set_active(request, queryset, active=True)
        self.message_user(
            request,
            ngettext("Reactivated %(count)d user.", "Reactivated %(count)d users.", count)
            % {"count": count},
            messages.SUCCESS,
        )

    def _set_active(self, request: HttpRequest, queryset: QuerySet[User], *, active: bool) -> int:
        """Flip `is_active` on the users that need it; log each change; return how many changed."""
        changing = list(queryset.filter(is_active=not active))
        User.objects.filter(pk__in=[user.pk for user in changing]).update(is_active=active)
        for user in changing:
            self.log_change(request, user, "Reactivated." if active else "Deactivated.")
        return len(changing)


class SearchOnlyAdmin(admin.ModelAdmin):
    """Staff find, look at and may delete these, but only players make them (through
    accounts.friends, which keeps the rules about who may befriend whom)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Friendship)
class FriendshipAdmin(SearchOnlyAdmin):
    list_display = ("user", "friend", "created_at")
    list_filter = ("created_at",)
    search_fields = ("user__username", "friend__username")
    search_help_text = "Search by either user's username. Each friendship shows once per side."
    list_select_related = ("user", "friend")
    date_hierarchy = "created_at"

    def delete_model(self, request: HttpRequest, obj: Friendship) -> None:
        self.delete_queryset(request, Friendship.objects.filter(pk=obj.pk))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Friendship]) -> None:
        """Delete both sides of each friendship: half a friendship would be a one-sided one."""
        pairs = Q(pk__in=[])
        for user_id, friend_id in queryset.values_list("user_id", "friend_id"):
            pairs |= Q(user_id=user_id, friend_id=friend_id) | Q(
                user_id=friend_id, friend_id=user_id
            )
        Friendship.objects.filter(pairs).delete()


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
