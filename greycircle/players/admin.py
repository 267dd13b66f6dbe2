"""The user's admin page as staff see it: the account (accounts.admin.UserAdmin), their games and
the moderation log, with every moderation action on the user recorded.

Users who have played are never deleted: their seats (`Seat.user` is PROTECT) keep the other
players' game records whole. Staff deactivate them instead: an inactive user cannot sign in, and
their existing sessions and app tokens no longer authenticate.

Every moderation action on a user — deactivating, reactivating, changing the account on its page,
setting its password, deleting it — asks for a reason and is recorded in the moderation log
(greycircle.moderation) in the same transaction; the user's page shows their log.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected as django_delete_selected
from django.contrib.admin.utils import display_for_value, unquote
from django.contrib.auth.forms import AdminPasswordChangeForm, UserChangeForm
from django.core.exceptions import FieldDoesNotExist
from django.db import transaction
from django.db.models import Count, IntegerField, Model, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse, QueryDict
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy, ngettext

from accounts import admin as accounts_admin
from accounts.models import Block, FriendRequest, Friendship, User
from greycircle.games.models import Invitation, Seat
from greycircle.moderation import pages as moderation_pages
from greycircle.moderation import selectors as moderation_selectors
from greycircle.moderation import services as moderation
from greycircle.moderation.errors import ModerationError
from greycircle.moderation.forms import ReasonForm, reason_field
from greycircle.moderation.models import ModerationActionKind
from greycircle.notifications.models import Notification

GAMES_SHOWN = 25

# A user's own rows, deleted with the user. Staff may not delete them one by one (their admins
# are read-only), but deleting the user takes them along.
GOES_WITH_THE_USER: tuple[type[Model], ...] = (
    Friendship,
    FriendRequest,
    Block,
    Invitation,
    Notification,
)

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
    """Django's bulk delete, refused up front (with a clear message) for users who have played
    and for yourself; its confirmation page asks why, and the deletion is recorded."""
    if queryset.filter(pk=request.user.pk).exists():
        modeladmin.message_user(
            request, "You cannot delete your own account. Nothing was changed.", messages.ERROR
        )
        return None
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
    form = ReasonForm(request.POST) if request.POST.get("post") else ReasonForm()
    if form.is_bound and not form.is_valid():
        # Not confirmed after all: Django's action shows its confirmation page again.
        request = copy.copy(request)
        request.POST = request.POST.copy()
        del request.POST["post"]
    response = django_delete_selected(modeladmin, request, queryset)
    if isinstance(response, TemplateResponse):
        response.context_data["reason_form"] = form
    return response


class UserModerationForm(UserChangeForm):
    """The user's page: any change to the account needs a reason, recorded with the change."""

    moderation_reason = reason_field(required=False)
    moderation_reason.help_text = (
        "Required to save any change to this account (deactivating it, a new e-mail address, "
        "...): it is recorded in the moderation log with your name and the time."
    )
    moderator: User | None = None  # the staff member, set per request by UserAdmin.get_form

    def moderated_fields(self) -> list[str]:
        return [name for name in self.changed_data if name != "moderation_reason"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.moderated_fields() and not cleaned.get("moderation_reason"):
            self.add_error("moderation_reason", moderation.REASON_REQUIRED)
        if (
            self.moderator is not None
            and self.instance.pk == self.moderator.pk
            and "is_active" in self.changed_data
            and not cleaned.get("is_active")
        ):
            self.add_error("is_active", "You cannot deactivate your own account.")
        return cleaned


class PasswordModerationForm(AdminPasswordChangeForm):
    reason = reason_field()


class UserAdmin(accounts_admin.UserAdmin):
    list_display = (*accounts_admin.UserAdmin.list_display, "game_count")
    # Named like Django's site-wide action, so this one replaces it.
    actions = [delete_selected, "deactivate_users", "reactivate_users"]
    form = UserModerationForm
    change_password_form = PasswordModerationForm
    change_user_password_template = "admin/accounts/user/change_password.html"
    delete_confirmation_template = "admin/accounts/user/delete_confirmation.html"
    delete_selected_confirmation_template = "admin/accounts/user/delete_selected_confirmation.html"
    fieldsets = (
        *accounts_admin.UserAdmin.fieldsets,
        (
            "Games",
            {"fields": ("games",), "description": CANNOT_DELETE_PLAYERS},
        ),
        (
            "Moderation",
            {
                "fields": ("moderation_log", "moderation_reason"),
                "description": "What staff did to this account, newest first: who, what, when, "
                "why. Say why below to save a change.",
            },
        ),
    )
    readonly_fields = (*accounts_admin.UserAdmin.readonly_fields, "games", "moderation_log")

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
        if (
            obj is not None
            and obj.pk is not None
            and (obj.pk == request.user.pk or Seat.objects.filter(user=obj).exists())
        ):
            return False
        return super().has_delete_permission(request, obj)

    def get_form(
        self, request: HttpRequest, obj: User | None = None, change: bool = False, **kwargs: Any
    ) -> type:
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None and issubclass(form, UserModerationForm):
            form = type(form.__name__, (form,), {"moderator": request.user})
        return form

    def save_model(self, request: HttpRequest, obj: User, form: Any, change: bool) -> None:
        """Save, and record the change with its reason (changeform_view's transaction)."""
        super().save_model(request, obj, form, change)
        changed = form.moderated_fields() if isinstance(form, UserModerationForm) else []
        if not change or not changed:
            return
        name = form.initial.get("username", obj.username)
        labels = [
            f"username (now {obj.username})" if field == "username" else self._field_name(field)
            for field in changed
            if field != "is_active"
        ]
        if "is_active" in changed:
            action = (
                ModerationActionKind.USER_REACTIVATE
                if obj.is_active
                else ModerationActionKind.USER_DEACTIVATE
            )
            done = "Reactivated" if obj.is_active else "Deactivated"
            description = f"{done} {name}" + (
                f"; also changed: {', '.join(labels)}." if labels else "."
            )
        else:
            action = ModerationActionKind.USER_CHANGE
            description = f"Changed {name}: {', '.join(labels)}."
        moderation.moderation_record(
            actor=request.user,
            action=action,
            reason=form.cleaned_data["moderation_reason"],
            user=obj,
            description=description,
        )

    @staticmethod
    def _field_name(field: str) -> str:
        """``e-mail when a game ends``: a changed field as the log names it."""
        try:
            return str(User._meta.get_field(field).verbose_name)
        except FieldDoesNotExist:
            return field

    def user_change_password(
        self, request: HttpRequest, id: str, form_url: str = ""
    ) -> HttpResponse:
        """Django's password page, asking why; a password set or disabled is recorded."""
        with transaction.atomic():
            user = self.get_object(request, unquote(id))
            before = user.password if user is not None else None
            response = super().user_change_password(request, id, form_url)
            if user is not None and request.method == "POST":
                user.refresh_from_db(fields=["password"])
                if user.password != before:
                    done = (
                        f"Set a new password for {user.username}."
                        if user.has_usable_password()
                        else f"Disabled password sign-in for {user.username}."
                    )
                    moderation.moderation_record(
                        actor=request.user,
                        action=ModerationActionKind.USER_PASSWORD,
                        reason=request.POST.get("reason", ""),
                        user=user,
                        description=done,
                    )
        return response

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Django's delete page, asking why. Posted without a reason it shows the page again
        (with the error) and deletes nothing."""
        form = ReasonForm(request.POST) if request.method == "POST" else ReasonForm()
        if form.is_bound and not form.is_valid():
            request = copy.copy(request)
            request.POST = QueryDict()
        return super().delete_view(
            request, object_id, {**(extra_context or {}), "reason_form": form}
        )

    def delete_model(self, request: HttpRequest, obj: User) -> None:
        moderation.users_delete(
            actor=request.user, user_ids=[obj.pk], reason=request.POST.get("reason", "")
        )

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        moderation.users_delete(
            actor=request.user,
            user_ids=list(queryset.values_list("pk", flat=True)),
            reason=request.POST.get("reason", ""),
        )

    def get_deleted_objects(
        self, objs: Sequence[User], request: HttpRequest
    ) -> tuple[list[Any], dict[str, int], set[str], list[Any]]:
        """As Django's, but the user's own rows (GOES_WITH_THE_USER) need no delete permission of
        their own: they go with the user, whom staff may delete."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        own = {str(model._meta.verbose_name) for model in GOES_WITH_THE_USER}
        return deleted, counts, {name for name in perms_needed if str(name) not in own}, protected

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

    @admin.display(description="moderation log")
    def moderation_log(self, user: User) -> str:
        if user.pk is None:
            return "—"
        return moderation_pages.log_table(
            moderation_selectors.moderation_log(user_id=user.pk),
            more_url=moderation_pages.log_url(user__id__exact=user.pk),
        )

    @admin.action(description="Deactivate selected users", permissions=["change"])
    def deactivate_users(
        self, request: HttpRequest, queryset: QuerySet[User]
    ) -> HttpResponse | None:
        if queryset.filter(pk=request.user.pk).exists():
            self.message_user(
                request,
                "You cannot deactivate your own account. Nothing was changed.",
                messages.ERROR,
            )
            return None
        return self._set_active(request, queryset, active=False)

    @admin.action(description="Reactivate selected users", permissions=["change"])
    def reactivate_users(
        self, request: HttpRequest, queryset: QuerySet[User]
    ) -> HttpResponse | None:
        return self._set_active(request, queryset, active=True)

    def _set_active(
        self, request: HttpRequest, queryset: QuerySet[User], *, active: bool
    ) -> HttpResponse | None:
        """Ask to confirm, with a reason; then flip `is_active` on the users that need it,
        recorded in the moderation log, and say how many changed."""
        users = list(queryset.order_by("username"))
        form = moderation_pages.reason_form(request)
        if not form.is_valid():
            verb = "Reactivate" if active else "Deactivate"
            return moderation_pages.confirmation_page(
                self,
                request,
                form=form,
                title=f"{verb} these users?",
                question=(
                    "Reactivate these users? They can sign in again."
                    if active
                    else "Deactivate these users? They can no longer sign in, and their "
                    "sessions and app tokens stop working at once."
                ),
                objects=[
                    user.username + ("" if user.is_active != active else " (already so)")
                    for user in users
                ],
                submit=f"Yes, {verb.lower()} them",
                cancel_url=reverse(f"{self.admin_site.name}:accounts_user_changelist"),
                action="reactivate_users" if active else "deactivate_users",
                selected=[user.pk for user in users],
            )
        change = moderation.users_reactivate if active else moderation.users_deactivate
        try:
            changed = change(
                actor=request.user,
                user_ids=[user.pk for user in users],
                reason=form.cleaned_data["reason"],
            )
        except ModerationError as error:
            self.message_user(request, error.detail, messages.ERROR)
            return None
        for user in changed:
            self.log_change(request, user, "Reactivated." if active else "Deactivated.")
        count = len(changed)
        self.message_user(
            request,
            (
                ngettext("Reactivated %(count)d user.", "Reactivated %(count)d users.", count)
                if active
                else ngettext("Deactivated %(count)d user.", "Deactivated %(count)d users.", count)
            )
            % {"count": count},
            messages.SUCCESS,
        )
        return None


# accounts registers its own view of the User; this one, with the games and the moderation,
# takes its place.
admin.site.unregister(User)
admin.site.register(User, UserAdmin)
