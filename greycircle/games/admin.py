"""Staff's window on games: read-only, with the state shown as spectators see it.

Nothing here may reveal hidden information: the raw `Game.state` (hands, the deck), `Game.seed`
(it fixes every deal) and `Move.private` are never shown. The only change staff can make is to
abort a game, and that goes through `services.game_abort` like every other state change — by way
of `greycircle.moderation.services.game_abort`, which asks why and records who aborted it, when
and why; that log is shown on the game's page. Invitations are listed here too, read-only.

`GameAdminBase` is the whole of that, for subclassing: each game app registers one for its proxy
model of `Game` (`circles.admin.CirclesGameAdmin` on `CirclesGame`, ...) and overrides
`render_view` (the position drawn from the spectator view) and `describe_move` (a log entry in
words). Permissions follow the registered model, so a proxy's own permissions
(``circles.view_circlesgame``; ``circles.change_circlesgame`` to abort) give a moderator that
game only. `GameAdmin`, on `Game` itself, shows every kind as JSON; the platform imports no game.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Sequence
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_permission_codename, get_user_model
from django.core.exceptions import PermissionDenied
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import ngettext

from greycircle.admin_base import GameRecordAdmin
from greycircle.games import registry
from greycircle.games.errors import GameInvalid, GameNotFound
from greycircle.games.models import Game, GameStatus, Invitation, Move, Seat
from greycircle.moderation import pages as moderation_pages
from greycircle.moderation import selectors as moderation_selectors
from greycircle.moderation import services as moderation
from greycircle.moderation.forms import ReasonForm

logger = logging.getLogger(__name__)

ABORTABLE = (GameStatus.OPEN, GameStatus.ACTIVE)


class PlayerFilter(admin.SimpleListFilter):
    """Games of one user (`?player=<user id>`), as linked from the user's admin page.

    It lists no choices of its own (there may be many thousands of users): it only shows, and
    lets staff clear, the player a link selected.
    """

    title = "player"
    parameter_name = "player"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        value = self.value()
        if not value or not value.isdigit():
            return []
        username = (
            get_user_model().objects.filter(pk=value).values_list("username", flat=True).first()
        )
        return [(value, username)] if username is not None else []

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        value = self.value()
        if value and value.isdigit():
            # A user holds at most one seat per game, so this adds no duplicate rows.
            return queryset.filter(seats__user_id=int(value))
        return queryset


class GamePartInline(admin.TabularInline):
    """Seats and moves are parts of a game: visible to whoever may view the game, never edited."""

    extra = 0
    can_delete = False
    show_change_link = False

    def _may_view_game(self, request: HttpRequest) -> bool:
        opts = self.parent_model._meta
        return any(
            request.user.has_perm(f"{opts.app_label}.{get_permission_codename(action, opts)}")
            for action in ("view", "change")
        )

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._may_view_game(request)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(GamePartInline):
    model = Seat
    fields = ("index", "player", "ai_level", "joined_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Seat]:
        return super().get_queryset(request).select_related("user")

    @admin.display(description="player")
    def player(self, seat: Seat) -> str:
        if seat.user_id is None:
            return seat.name
        url = reverse("admin:accounts_user_change", args=[seat.user_id])
        return format_html('<a href="{}">{}</a>', url, seat.user.username)


class MoveInline(GamePartInline):
    """The move log as spectators see it: `Move.public` only, never `Move.private` or `data`.

    Each entry is shown by the game admin's `describe_move` (`game_admin` and `seat_names` are set
    on every instance by `GameAdminBase.get_inline_instances`).
    """

    model = Move
    verbose_name = "move"
    verbose_name_plural = "move log (public entries only)"
    fields = ("number", "seat", "player", "public_entry", "created_at")
    readonly_fields = fields
    game_admin: GameAdminBase | None = None
    seat_names: list[str] = []

    def get_queryset(self, request: HttpRequest) -> QuerySet[Move]:
        return super().get_queryset(request).select_related("player").order_by("number")

    @admin.display(description="entry")
    def public_entry(self, move: Move) -> str:
        if self.game_admin is None:
            return public_json(move.public)
        try:
            return self.game_admin.describe_move(move.public, move.seat, self.seat_names)
        except Exception:  # an entry the words do not know: show it as it is
            logger.exception("could not describe move %s of game %s", move.number, move.game_id)
            return public_json(move.public)


def public_json(entry: Any) -> str:
    return json.dumps(entry, sort_keys=True, cls=DjangoJSONEncoder)


def seat_name(names: Sequence[str], seat: int | None) -> str:
    """The name of the player at `seat` (``Seat 3`` when the game has no such seat)."""
    if seat is not None and 0 <= seat < len(names):
        return names[seat]
    return f"Seat {seat + 1}" if seat is not None else "nobody"


class GameAdminBase(admin.ModelAdmin):
    """A read-only game admin: the spectator view, the public log, seats; abort via the service.

    Subclasses for one kind set `kind` and override `render_view` and `describe_move`. They must
    keep to the spectator view: `render_view` is only ever given `rules.view(state, None)`.
    """

    kind: str | None = None  # None: every kind (the platform's own admin)
    list_display = (
        "id",
        "kind",
        "status",
        "players",
        "version",
        "move_count",
        "created_at",
        "updated_at",
    )
    list_display_links = ("id", "kind")
    list_filter = ("kind", "status", "created_at", PlayerFilter)
    search_fields = ("seats__user__username",)
    search_help_text = "Search by a player's username."
    actions = ["abort_selected"]
    inlines = [SeatInline, MoveInline]
    # `state` and `seed` are deliberately absent: the seed fixes every deal and the raw state holds
    # every hand. The state is shown only through the rules' spectator view.
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "kind",
                    "status",
                    "version",
                    "move_count",
                    "to_move",
                    "options",
                    "outcome",
                    "created_by",
                    "rematch_of",
                )
            },
        ),
        ("Dates", {"fields": ("created_at", "updated_at", "finished_at")}),
        (
            "State",
            {
                "fields": ("spectator_view",),
                "description": "The game as a spectator sees it. Hidden information (players' "
                "hands, the deck, the game's seed) is never shown here.",
            },
        ),
        (
            "Moderation log",
            {
                "fields": ("moderation_log",),
                "description": "What staff did to this game, newest first: who, what, when, why.",
            },
        ),
    )
    readonly_fields = tuple(name for _, section in fieldsets for name in section["fields"])
    change_form_template = "admin/games/game/change_form.html"

    # --- lists -------------------------------------------------------------------------------

    def get_list_display(self, request: HttpRequest) -> Sequence[str]:
        names = super().get_list_display(request)
        return names if self.kind is None else tuple(name for name in names if name != "kind")

    def get_list_display_links(
        self, request: HttpRequest, list_display: Sequence[str]
    ) -> Sequence[str]:
        names = super().get_list_display_links(request, list_display)
        return tuple(name for name in names or () if name in list_display)

    def get_list_filter(self, request: HttpRequest) -> Sequence[Any]:
        filters = super().get_list_filter(request)
        return filters if self.kind is None else tuple(f for f in filters if f != "kind")

    # --- what a game kind overrides -----------------------------------------------------------

    def render_view(self, game: Game, view: dict[str, Any], seat_names: list[str]) -> str:
        """HTML for the spectator view `view` of `game` (the default: its JSON)."""
        return format_html(
            '<pre class="spectator-view">{}</pre>',
            json.dumps(view, indent=2, sort_keys=True, cls=DjangoJSONEncoder),
        )

    def describe_move(self, entry: dict[str, Any], seat: int, seat_names: list[str]) -> str:
        """One public log entry, made by `seat` (the default: its JSON)."""
        return public_json(entry)

    # --- permissions: look, and abort; nothing else -------------------------------------------

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False

    def has_abort_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        """Aborting is the one change staff may make: it needs the model's change permission."""
        opts = self.opts
        return request.user.has_perm(f"{opts.app_label}.{get_permission_codename('change', opts)}")

    # --- lists and pages ----------------------------------------------------------------------

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        queryset = super().get_queryset(request).with_seats().select_related("created_by")
        return queryset if self.kind is None else queryset.filter(kind=self.kind)

    def get_inline_instances(self, request: HttpRequest, obj: Game | None = None) -> list[Any]:
        inlines = super().get_inline_instances(request, obj)
        names = [seat.name for seat in obj.seats.all()] if obj is not None else []
        for inline in inlines:
            if isinstance(inline, MoveInline):
                inline.game_admin = self
                inline.seat_names = names
        return inlines

    @admin.display(description="players")
    def players(self, game: Game) -> str:
        return ", ".join(seat.name for seat in game.seats.all())

    @admin.display(description="state (spectator view)")
    def spectator_view(self, game: Game) -> str:
        if not game.state:
            return "No state yet: the game has not started."
        try:
            rules = registry.get(game.kind).rules
        except registry.UnknownKind:
            return f"The game kind {game.kind!r} is not installed, so its state cannot be shown."
        try:
            view = rules.view(rules.decode(game.state), None)
        except Exception:
            logger.exception("could not show the state of game %s", game.pk)
            return "The stored state could not be read by the rules (see the server log)."
        try:
            return self.render_view(game, view, [seat.name for seat in game.seats.all()])
        except Exception:
            logger.exception("could not draw the state of game %s", game.pk)
            return "The position could not be drawn (see the server log)."

    @admin.display(description="moderation log")
    def moderation_log(self, game: Game) -> str:
        if game.pk is None:
            return "—"
        return moderation_pages.log_table(
            moderation_selectors.moderation_log(game_id=game.pk),
            more_url=moderation_pages.log_url(game__id__exact=game.pk),
        )

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Game | None = None,
    ) -> HttpResponse:
        if obj is not None and obj.status in ABORTABLE and self.has_abort_permission(request, obj):
            context["abort_url"] = reverse(
                f"{self.admin_site.name}:{self.opts.app_label}_{self.opts.model_name}_abort",
                args=[obj.pk],
            )
        return super().render_change_form(request, context, add, change, form_url, obj)

    # --- aborting -----------------------------------------------------------------------------

    def get_urls(self) -> list[Any]:
        name = f"{self.opts.app_label}_{self.opts.model_name}_abort"
        return [
            path(
                "<path:object_id>/abort/",
                self.admin_site.admin_view(self.abort_view),
                name=name,
            ),
            *super().get_urls(),
        ]

    def _abort(self, request: HttpRequest, game_id: int, reason: str) -> Game | None:
        """Abort one game, recorded in the moderation log with `reason`; None when it was
        already over (or is gone)."""
        try:
            game = moderation.game_abort(actor=request.user, game_id=game_id, reason=reason)
        except (GameInvalid, GameNotFound):
            return None
        self.log_change(request, self._as_model(game), "Aborted the game.")
        return game

    def _as_model(self, game: Game) -> Game:
        """`game` as an instance of this admin's model (a proxy: same row, same fields), so that
        the admin's history records it under that model."""
        if type(game) is self.model or not issubclass(self.model, Game):
            return game
        proxied = copy.copy(game)
        proxied.__class__ = self.model
        return proxied

    def _change_url(self, game_id: int) -> str:
        return reverse(
            f"{self.admin_site.name}:{self.opts.app_label}_{self.opts.model_name}_change",
            args=[game_id],
        )

    @admin.action(description="Abort selected games", permissions=["abort"])
    def abort_selected(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        """Asks to confirm, with a reason; then aborts each game and records it."""
        games = list(queryset.order_by("pk"))
        form = moderation_pages.reason_form(request)
        if not form.is_valid():
            return moderation_pages.confirmation_page(
                self,
                request,
                form=form,
                title="Abort these games?",
                question="Abort these games? Each ends at once and nobody wins. This cannot be "
                "undone.",
                objects=[f"{game} — {self.players(game)}" for game in games],
                submit="Yes, abort the games",
                cancel_url=reverse(
                    f"{self.admin_site.name}:{self.opts.app_label}_{self.opts.model_name}"
                    "_changelist"
                ),
                action="abort_selected",
                selected=[game.pk for game in games],
            )
        reason = form.cleaned_data["reason"]
        aborted: list[int] = []
        refused: list[int] = []
        for game in games:
            (aborted if self._abort(request, game.pk, reason) else refused).append(game.pk)
        if aborted:
            self.message_user(
                request,
                ngettext("Aborted %(count)d game.", "Aborted %(count)d games.", len(aborted))
                % {"count": len(aborted)},
                messages.SUCCESS,
            )
        if refused:
            self.message_user(
                request,
                ngettext(
                    "Game %(ids)s was not aborted: it is already over.",
                    "Games %(ids)s were not aborted: they are already over.",
                    len(refused),
                )
                % {"ids": ", ".join(f"#{game_id}" for game_id in refused)},
                messages.ERROR,
            )
        return None

    def abort_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """GET: ask for confirmation and a reason. POST with a reason: abort the game (recorded),
        back to its page; without one: ask again, nothing changed."""
        game = self.get_object(request, unquote(object_id))
        if game is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if not self.has_abort_permission(request, game):
            raise PermissionDenied
        change_url = self._change_url(game.pk)
        if game.status not in ABORTABLE:
            self.message_user(request, f"{game} is already over.", messages.ERROR)
            return HttpResponseRedirect(change_url)
        form = ReasonForm(request.POST) if request.method == "POST" else ReasonForm()
        if request.method == "POST" and form.is_valid():
            if self._abort(request, game.pk, form.cleaned_data["reason"]):
                self.message_user(request, f"Aborted game #{game.pk}.", messages.SUCCESS)
            else:
                self.message_user(request, f"{game} is already over.", messages.ERROR)
            return HttpResponseRedirect(change_url)
        return moderation_pages.confirmation_page(
            self,
            request,
            form=form,
            title="Abort this game?",
            question=f"Abort {game} ({self.players(game)})? The game ends at once and nobody "
            "wins. This cannot be undone.",
            objects=[],
            submit="Yes, abort the game",
            cancel_url=change_url,
        )


@admin.register(Game)
class GameAdmin(GameAdminBase):
    """Every game of every kind, the state as JSON; links to a kind's own admin where there is
    one and the user may see it."""

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Game | None = None,
    ) -> HttpResponse:
        if obj is not None:
            kind_admin = self.kind_admin(obj.kind)
            if kind_admin is not None and kind_admin.has_view_or_change_permission(request, obj):
                opts = kind_admin.opts
                context["kind_admin_url"] = reverse(
                    f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_change",
                    args=[obj.pk],
                )
                context["kind_admin_name"] = opts.verbose_name
        return super().render_change_form(request, context, add, change, form_url, obj)

    def kind_admin(self, kind: str) -> GameAdminBase | None:
        """The admin a game app registered for `kind`, if any."""
        for model_admin in self.admin_site._registry.values():
            if (
                isinstance(model_admin, GameAdminBase)
                and model_admin is not self
                and model_admin.kind == kind
            ):
                return model_admin
        return None


@admin.register(Invitation)
class InvitationAdmin(GameRecordAdmin):
    """Invitations to games, to look up: who invited whom, to which game, with what answer.

    Read-only: only players make and answer invitations (greycircle.games.invitations). It shows
    the game's number, kind and status, never its state, so nothing hidden can appear here.
    """

    list_display = (
        "created_at",
        "game_link",
        "seat",
        "inviter",
        "invitee",
        "status",
        "on_decline",
        "expires_at",
        "answered_at",
    )
    list_display_links = ("created_at",)
    list_filter = ("status", "on_decline", "game__kind", "created_at")
    search_fields = ("invitee__username", "inviter__username")
    search_help_text = "Search by the inviting or the invited player's username."
    list_select_related = ("game", "invitee", "inviter")
    date_hierarchy = "created_at"
    fields = (
        "game_link",
        "seat",
        "inviter",
        "invitee",
        "status",
        "on_decline",
        "created_at",
        "expires_at",
        "answered_at",
    )
