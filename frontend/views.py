"""Pages of the site. Views stay thin: they read through selectors and render."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_POST

from frontend.forms import CUSTOM, FRIEND, NewGameForm
from greycircle.errors import ServiceError
from greycircle.games import clocks, deadlines, registry, results, selectors, services
from greycircle.games.errors import GameNotFound
from greycircle.games.models import DaysPerMove, Game, GameStatus
from greycircle.games.selectors import MyGames
from greycircle.notifications.services import notifications_read_for_game

# A link key is 22 characters (greycircle.games.models.new_link_key); nothing longer is compared.
LINK_KEY_MAX = 64

# The home page shows this many games of each list, with a link to the rest.
HOME_LIST_LIMIT = 5
# Games per page of "My games" and "Watch".
GAMES_PER_PAGE = 20


def home(request: HttpRequest) -> HttpResponse:
    """For a player: the first few games of each of their lists, each linking to the rest."""
    lists: list[dict[str, Any]] = []
    if request.user.is_authenticated:
        for which in MyGames:
            games = list(
                selectors.games_for_user(user=request.user, which=which)[: HOME_LIST_LIMIT + 1]
            )
            lists.append(
                {
                    "key": which.value,
                    "label": which.label,
                    "games": [_game_row(game, request.user) for game in games[:HOME_LIST_LIMIT]],
                    "more": len(games) > HOME_LIST_LIMIT,
                }
            )
    return render(
        request,
        "frontend/home.html",
        {
            "lists": lists,
            "has_games": any(entry["games"] for entry in lists),
            "game_cards": _game_cards(),
        },
    )


@login_required
def my_games(request: HttpRequest) -> HttpResponse:
    """One of the player's lists (`?list=`, waiting on you by default), newest first, by pages."""
    which = request.GET.get("list") or MyGames.MY_TURN
    if which not in MyGames.values:
        raise Http404("No such list.")
    page = _page(request, selectors.games_for_user(user=request.user, which=which))
    return render(
        request,
        "frontend/my_games.html",
        {
            "lists": [{"key": choice.value, "label": choice.label} for choice in MyGames],
            "current": which,
            "current_label": MyGames(which).label,
            "page": page,
            "games": [_game_row(game, request.user) for game in page],
        },
    )


@login_required
def watch(request: HttpRequest) -> HttpResponse:
    """Games in play between people that anyone may watch (never an unlisted one)."""
    page = _page(request, selectors.games_live(viewer=request.user))
    return render(
        request,
        "frontend/watch.html",
        {"page": page, "games": [_game_row(game, request.user) for game in page]},
    )


def _page(request: HttpRequest, games: Any) -> Page:
    """The page asked for (`?page=`); a page out of range or not a number gives the nearest."""
    return Paginator(games, GAMES_PER_PAGE).get_page(request.GET.get("page"))


def _game_cards() -> list[dict[str, Any]]:
    """Each kind's card on the home page: its app's `<kind>/card.html`, or a plain one."""
    return [
        {
            "game_kind": game_kind,
            "templates": [f"{game_kind.kind}/card.html", "frontend/includes/game_card.html"],
        }
        for game_kind in registry.all_kinds()
    ]


def rules(request: HttpRequest, kind: str) -> HttpResponse:
    """A game's rules: its app's template (which extends "frontend/rules.html"), with the
    diagrams and whatever else the kind's `rules_context` gives it."""
    try:
        game_kind = registry.get(kind)
    except registry.UnknownKind:
        raise Http404("No such game.") from None
    if not game_kind.rules_template:
        raise Http404("This game has no rules page.")
    context: dict[str, Any] = {
        "game_kind": game_kind,
        "other_kinds": [
            other for other in registry.all_kinds() if other.kind != kind and other.rules_template
        ],
        "kind_data": game_kind.client_data() if game_kind.client_data else None,
        "diagrams": {},
    }
    if game_kind.rules_context:
        context.update(game_kind.rules_context())
    return render(request, game_kind.rules_template, context)


def about(request: HttpRequest) -> HttpResponse:
    """What the site is, its games, where it comes from, and the cookies it uses."""
    return render(request, "frontend/about.html", {"game_cards": _game_cards()})


def _game_row(game: Game, viewer: Any) -> dict[str, Any]:
    you = selectors.seat_index_for(game=game, viewer=viewer)
    seats = selectors.seats_json(game=game)
    timing = _timing(game)
    for seat, clock in zip(seats, timing["clocks"] or [], strict=False):
        seat["clock"] = clock
    return {
        "id": game.pk,
        "unlisted": game.unlisted,
        "kind": game.kind,
        "title": _kind_title(game.kind),
        "status": game.status,
        "status_label": game.get_status_display(),
        "seats": seats,
        "you": you,
        "result": results.game_result_for(
            kind=game.kind, status=game.status, outcome=game.outcome, seats=seats, you=you
        ),
        "your_turn": selectors.turn_waits_for(game=game, seat=you),
        "rated": game.rated,
        **_time_left(game),
        **timing,
    }


def _timing(game: Game) -> dict[str, Any]:
    """How the game is timed, as lists show it ("3+2" or "3 days"), and a live game's clocks
    while it is in play: each seat's time now, the running one marked (js/game-lists.js ticks
    it from there), one per seat in order."""
    control = clocks.time_control_of(game)
    if control is None:
        return {
            "timing": DaysPerMove(game.days_per_move).label,
            "timing_title": f"Correspondence: {DaysPerMove(game.days_per_move).label} per move",
            "clocks": None,
        }
    shown = None
    if game.status == GameStatus.ACTIVE and game.clock_remaining_ms:
        now = timezone.now()
        running = game.to_move if game.flag_at is not None else None
        first_turn = running is not None and clocks.is_first_turn(game, running)
        shown = []
        for seat, remaining in enumerate(game.clock_remaining_ms):
            ticking = seat == running and not first_turn
            if ticking:
                remaining = max(0, remaining - clocks.elapsed_ms(game.clock_started_at, now))
            shown.append({"ms": remaining, "text": clock_words(remaining), "running": ticking})
    return {
        "timing": control.label,
        "timing_title": f"Live: {control.minutes} min each, {control.increment} s added per turn",
        "clocks": shown,
    }


def clock_words(ms: int) -> str:
    """A clock's time as the game page shows it (js/clock.js `clockText`): "4:05", "1:02:03",
    "0:09.4" under ten seconds."""
    if ms < 10_000:
        return f"0:0{ms // 100 / 10:.1f}"
    seconds = ms // 1000
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes}:{seconds % 60:02d}"
    return f"{minutes // 60}:{minutes % 60:02d}:{seconds % 60:02d}"


def _time_left(game: Game) -> dict[str, Any]:
    """The time left to the player to move, in words, for games whose time runs."""
    if game.status != GameStatus.ACTIVE or game.move_deadline is None:
        return {"deadline": None}
    left = game.move_deadline - timezone.now()
    return {
        "deadline": game.move_deadline,
        "time_left": deadlines.time_left_words(left),
        "time_up": left.total_seconds() <= 0,
    }


def _kind_title(kind: str) -> str:
    try:
        return registry.get(kind).title
    except registry.UnknownKind:
        return kind


@login_required
def play(request: HttpRequest) -> HttpResponse:
    """Start a game (one form per kind, with the kind's options) or join an open one.

    The form checks the seats and the options against the kind's options serializer; the game
    service (the engine's `validate_options`) has the last word, and its refusal shows on the form.
    `?invite=<username>` (a friend's "Invite to a game" link) fills in the second seat with them:
    in every kind's form, or with `&kind=<kind>` (a profile's link for one game) in that one's.
    """
    # Guests invite nobody (services.game_create): their forms have no friend's seat.
    can_invite = not request.user.is_guest
    invite = request.GET.get("invite", "").strip()[:150] if can_invite else ""
    initial = {"seat_1": FRIEND, "username_1": invite} if invite else None
    kinds = {game_kind.kind: game_kind for game_kind in registry.all_kinds()}
    invite_kind = kinds.get(request.GET.get("kind", ""))
    forms_by_kind = {
        game_kind.kind: NewGameForm(
            request.POST if request.POST.get("kind") == game_kind.kind else None,
            game_kind=game_kind,
            prefix=game_kind.kind,
            initial=initial if invite_kind is None or invite_kind is game_kind else None,
            can_invite=can_invite,
        )
        for game_kind in kinds.values()
    }
    if request.method == "POST":
        form = forms_by_kind.get(request.POST.get("kind", ""))
        if form is not None and form.is_valid():
            try:
                game = services.game_create(
                    creator=request.user,
                    kind=form.game_kind.kind,
                    opponents=form.cleaned_data["opponents"],
                    options=form.cleaned_data["options"],
                    unlisted=request.POST.get("unlisted") == "on",
                    days_per_move=form.cleaned_data["days_per_move"],
                    on_decline=form.cleaned_data["on_decline"],
                    time_control=form.cleaned_data["time_control"],
                    rated=form.cleaned_data["rated"],
                )
            except ServiceError as error:
                form.add_error(None, error.detail)
            else:
                return redirect("game", game_id=game.pk)
    open_games = [
        _game_row(game, request.user) for game in selectors.games_open(viewer=request.user)[:20]
    ]
    return render(
        request,
        "frontend/play.html",
        {
            "forms": [(registry.get(kind), form) for kind, form in forms_by_kind.items()],
            "open_games": open_games,
            "friend_choice": FRIEND,
            "custom_choice": CUSTOM,
            "first_move_seconds": f"{clocks.first_move_seconds():g}",
            "invite": invite,
            "invite_kind": invite_kind,
            "can_invite": can_invite,
        },
    )


def link_key_of(request: HttpRequest) -> str:
    """The unlisted game's link key the page was opened with (`?key=`), if any."""
    key = request.GET.get("key", "") or request.POST.get("key", "")
    return key if len(key) <= LINK_KEY_MAX else ""


def game_for_page(request: HttpRequest, game_id: int) -> Game:
    """The game of a page about it, if the viewer may see it (`selectors.game_visible_to`);
    else 404, as for an id that was never used."""
    found = selectors.game_get(game_id=game_id)
    if found is None or not selectors.game_visible_to(
        game=found, viewer=request.user, key=link_key_of(request)
    ):
        raise Http404("No such game.")
    return found


@login_required
@require_POST
def join(request: HttpRequest, game_id: int) -> HttpResponse:
    """Take an open seat (from the lobby or the game's own page), then show the game."""
    try:
        services.game_join(game_id=game_id, user=request.user, key=link_key_of(request))
    except GameNotFound as error:
        messages.error(request, error.detail)
        return redirect("play")
    except ServiceError as error:
        messages.error(request, error.detail)
    return redirect("game", game_id=game_id)


@login_required
@ensure_csrf_cookie
def game(request: HttpRequest, game_id: int) -> HttpResponse:
    """The live game page: the first envelope is in the page; the socket brings the rest."""
    found = game_for_page(request, game_id)
    # Opening a game reads its notifications (the page's tab title counts only the others).
    notifications_read_for_game(user=request.user, game_id=found.pk)
    envelope = selectors.game_view_for(game=found, viewer=request.user)
    game_kind = registry.get(found.kind)
    return render(
        request,
        "frontend/game.html",
        {
            "game": found,
            "title": _kind_title(found.kind),
            "envelope": envelope,
            "link_key": link_key_of(request),
            # An unlisted game's players see the link to pass on.
            "share_url": request.build_absolute_uri(
                f"{reverse('game', args=[found.pk])}?key={envelope['link_key']}"
            )
            if envelope["link_key"]
            else None,
            "kind_data": game_kind.client_data() if game_kind.client_data else None,
            "client": {
                "username": request.user.username,
                "showHelpers": request.user.show_helpers,
                "confirmMoves": request.user.confirm_moves,
            },
        },
    )
