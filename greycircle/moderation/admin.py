"""The moderation log in the admin: searchable, filterable, and read-only for everybody — an
audit log is written by the moderation services only, never added to, edited or deleted here.

Flags too: raised by the apps that see a pattern, listed open first; the one change staff make is
to mark flags reviewed, with a reason, which the moderation log records.

Sanctions likewise: imposed through their service (the moderation desk, greycircle.reports), listed
here read-only; the one change is to lift them, with a reason (`sanctions.sanction_lift`)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth import get_permission_codename
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import ngettext

from greycircle.admin_base import ReadOnlyAdmin
from greycircle.moderation import pages, sanctions, services
from greycircle.moderation.errors import ModerationError
from greycircle.moderation.models import Flag, ModerationAction, Sanction


def _user_link(user: Any) -> str:
    if user is None:
        return ""
    url = reverse("admin:accounts_user_change", args=[user.pk])
    return format_html('<a href="{}">{}</a>', url, user.username)


@admin.register(ModerationAction)
class ModerationActionAdmin(ReadOnlyAdmin):
    list_display = ("created", "actor", "action", "description", "target", "reason")
    list_display_links = ("created",)
    list_filter = ("action", "created")
    search_fields = ("actor__username", "user__username", "description", "reason")
    search_help_text = (
        "Search by the staff member's or the user's username, or words of what was done or why."
    )
    list_select_related = ("actor", "user")
    date_hierarchy = "created"
    fields = ("created", "actor", "action", "description", "target", "reason")

    @admin.display(description="acted on")
    def target(self, entry: ModerationAction) -> str:
        """Links to the user's and the game's admin pages (while they exist)."""
        links = []
        if entry.user_id is not None:
            links.append(_user_link(entry.user))
        if entry.game_id is not None:
            url = reverse("admin:games_game_change", args=[entry.game_id])
            links.append(format_html('<a href="{}">Game #{}</a>', url, entry.game_id))
        return format_html(", ".join(["{}"] * len(links)), *links) if links else "—"


class ReviewedFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "reviewed"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("no", "Open"), ("yes", "Reviewed")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Flag]) -> QuerySet[Flag]:
        if self.value() in ("no", "yes"):
            return queryset.filter(reviewed_at__isnull=self.value() == "no")
        return queryset


@admin.register(Flag)
class FlagAdmin(ReadOnlyAdmin):
    list_display = ("updated", "kind", "description", "accounts", "games", "latest_game", "status")
    list_display_links = ("updated",)
    list_filter = (ReviewedFilter, "kind", "updated")
    search_fields = ("user__username", "other_user__username", "description")
    search_help_text = "Search by either account's username, or words of what was seen."
    list_select_related = ("user", "other_user", "reviewed_by")
    date_hierarchy = "updated"
    fields = (
        "kind",
        "description",
        "accounts",
        "games",
        "latest_game",
        "created",
        "updated",
        "status",
    )
    actions = ["review_selected"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Flag]:
        # Open flags first; the game's number is linked, its state (every hand) never read.
        return (
            super()
            .get_queryset(request)
            .select_related("game")
            .defer("game__state")
            .order_by("reviewed_at", "-updated", "-pk")
        )

    @admin.display(description="accounts")
    def accounts(self, flag: Flag) -> str:
        links = [_user_link(user) for user in (flag.user, flag.other_user) if user is not None]
        return format_html(" against ".join(["{}"] * len(links)), *links) if links else "—"

    @admin.display(description="latest game", ordering="game_id")
    def latest_game(self, flag: Flag) -> str:
        if flag.game_id is None:
            return "—"
        url = reverse("admin:games_game_change", args=[flag.game_id])
        return format_html('<a href="{}">Game #{}</a>', url, flag.game_id)

    @admin.display(description="status", ordering="reviewed_at")
    def status(self, flag: Flag) -> str:
        if flag.reviewed_at is None:
            return "open"
        reviewer = flag.reviewed_by.username if flag.reviewed_by else "?"
        return f"reviewed by {reviewer}, {flag.reviewed_at:%Y-%m-%d %H:%M}"

    def has_review_permission(self, request: HttpRequest) -> bool:
        """Reviewing is the one change staff may make: it needs the model's change permission."""
        codename = get_permission_codename("change", self.opts)
        return request.user.has_perm(f"{self.opts.app_label}.{codename}")

    @admin.action(description="Mark selected flags reviewed", permissions=["review"])
    def review_selected(
        self, request: HttpRequest, queryset: QuerySet[Flag]
    ) -> HttpResponse | None:
        """Asks what was found, as the reason; then marks the open flags reviewed (recorded)."""
        flags = list(queryset.order_by("pk"))
        form = pages.reason_form(request)
        if not form.is_valid():
            return pages.confirmation_page(
                self,
                request,
                form=form,
                title="Mark these flags reviewed?",
                question="Mark these flags reviewed? Say what you found and did: it is kept in "
                "the moderation log. The same pattern going on raises a new flag.",
                objects=[
                    flag.description + ("" if flag.reviewed_at is None else " (already reviewed)")
                    for flag in flags
                ],
                submit="Yes, mark them reviewed",
                cancel_url=reverse(f"{self.admin_site.name}:moderation_flag_changelist"),
                action="review_selected",
                selected=[flag.pk for flag in flags],
            )
        try:
            reviewed = services.flags_review(
                actor=request.user,
                flag_ids=[flag.pk for flag in flags],
                reason=form.cleaned_data["reason"],
            )
        except ModerationError as error:
            self.message_user(request, error.detail, messages.ERROR)
            return None
        count = len(reviewed)
        self.message_user(
            request,
            ngettext("Reviewed %(count)d flag.", "Reviewed %(count)d flags.", count)
            % {"count": count},
            messages.SUCCESS,
        )
        return None


class SanctionStatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("active", "In force"), ("lifted", "Lifted"), ("ended", "Ended or acknowledged")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Sanction]) -> QuerySet[Sanction]:
        in_force = sanctions.in_force(now=timezone.now())
        if self.value() == "active":
            return queryset.filter(in_force)
        if self.value() == "lifted":
            return queryset.filter(lifted_at__isnull=False)
        if self.value() == "ended":
            return queryset.filter(lifted_at__isnull=True).exclude(in_force)
        return queryset


@admin.register(Sanction)
class SanctionAdmin(ReadOnlyAdmin):
    list_display = ("created", "player", "kind", "until", "status", "created_by", "reason")
    list_display_links = ("created",)
    list_filter = (SanctionStatusFilter, "kind", "created")
    search_fields = ("user__username", "old_username", "new_username", "reason", "notice")
    search_help_text = "Search by the player's username (or a renamed one), or words of the reason."
    list_select_related = ("user", "created_by", "lifted_by")
    date_hierarchy = "created"
    fields = (
        "player",
        "kind",
        "created",
        "created_by",
        "until",
        "reason",
        "notice",
        "old_username",
        "new_username",
        "acknowledged_at",
        "status",
        "lift_reason",
    )
    actions = ["lift_selected"]

    @admin.display(description="player", ordering="user__username")
    def player(self, sanction: Sanction) -> str:
        return _user_link(sanction.user)

    @admin.display(description="status")
    def status(self, sanction: Sanction) -> str:
        if sanction.lifted_at is not None:
            lifter = sanction.lifted_by.username if sanction.lifted_by else "?"
            return f"lifted by {lifter}, {sanction.lifted_at:%Y-%m-%d %H:%M}"
        if sanction.until is not None and sanction.until <= timezone.now():
            return "ended"
        if sanction.acknowledged_at is not None:
            return "acknowledged"
        return "in force"

    def has_lift_permission(self, request: HttpRequest) -> bool:
        """Lifting is the one change staff may make: it needs the model's change permission."""
        codename = get_permission_codename("change", self.opts)
        return request.user.has_perm(f"{self.opts.app_label}.{codename}")

    @admin.action(description="Lift selected sanctions", permissions=["lift"])
    def lift_selected(
        self, request: HttpRequest, queryset: QuerySet[Sanction]
    ) -> HttpResponse | None:
        """Asks why; then lifts each sanction (each recorded, each player told)."""
        chosen = list(queryset.select_related("user").order_by("pk"))
        form = pages.reason_form(request)
        if not form.is_valid():
            return pages.confirmation_page(
                self,
                request,
                form=form,
                title="Lift these sanctions?",
                question="Lift these sanctions? Each player is told, and your reason is kept in "
                "the moderation log (never shown to the player).",
                objects=[
                    f"{sanction.get_kind_display()} of {sanction.user.username}"
                    + ("" if sanction.lifted_at is None else " (already lifted)")
                    for sanction in chosen
                ],
                submit="Yes, lift them",
                cancel_url=reverse(f"{self.admin_site.name}:moderation_sanction_changelist"),
                action="lift_selected",
                selected=[sanction.pk for sanction in chosen],
            )
        lifted = 0
        for sanction in chosen:
            try:
                sanctions.sanction_lift(
                    actor=request.user, sanction_id=sanction.pk, reason=form.cleaned_data["reason"]
                )
            except ModerationError as error:
                self.message_user(
                    request,
                    f"{sanction.get_kind_display()} of {sanction.user.username}: {error.detail}",
                    messages.ERROR,
                )
            else:
                lifted += 1
        if lifted:
            self.message_user(
                request,
                ngettext("Lifted %(count)d sanction.", "Lifted %(count)d sanctions.", lifted)
                % {"count": lifted},
                messages.SUCCESS,
            )
        return None
