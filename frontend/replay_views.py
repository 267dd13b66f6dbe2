"""The replay page of a game that is over, and importing a record into a new game."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_POST

from frontend.replay_forms import RecordImportForm
from frontend.views import game_for_page
from greycircle.errors import ServiceError
from greycircle.games import registry, replays, services
from greycircle.games.services import SeatSpec


@login_required
@ensure_csrf_cookie
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """Step through a game that is over, drawn by the kind's own renderer; for a kind with an
    analysis (Circles), the engine's verdict on each move beside it."""
    found = game_for_page(request, game_id)
    if not replays.game_has_replay(game=found):
        messages.info(request, "The replay opens when the game is over.")
        return redirect("game", game_id=found.pk)
    game_kind = registry.get(found.kind)
    recordable = game_kind in replays.kinds_with_records()
    return render(
        request,
        "frontend/replay.html",
        {
            "game": found,
            "title": game_kind.title,
            "replay": replays.replay_for(game=found, viewer=request.user),
            "kind_data": game_kind.client_data() if game_kind.client_data else None,
            "client": {
                "analysis": game_kind.analysis is not None,
                # Players and staff may ask for the analysis; everyone else may read it.
                "may_analyse": game_kind.analysis is not None
                and replays.analysis_may_request(game=found, user=request.user),
                "records": recordable,
            },
            "import_form": RecordImportForm(game_kind=game_kind) if recordable else None,
        },
    )


@login_required
@require_POST
def game_import(request: HttpRequest) -> HttpResponse:
    """Start a game from a record against a computer (the replay page's "Study from here", the
    Play page's import), then show it; a refusal goes back where the form was, with the reason."""
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = reverse("play")
    try:
        game_kind = registry.get(request.POST.get("kind", ""))
    except registry.UnknownKind:
        raise Http404("No such game.") from None
    form = RecordImportForm(request.POST, game_kind=game_kind)
    if not form.is_valid():
        errors = [message for field in form.errors.values() for message in field]
        messages.error(request, " ".join(errors))
        return redirect(back)
    computers = [SeatSpec(ai_level=form.cleaned_data["ai_level"])]
    try:
        game = services.game_create(
            creator=request.user,
            kind=game_kind.kind,
            opponents=computers * (game_kind.rules.min_seats - 1),
            record=form.cleaned_data["record"],
        )
    except ServiceError as error:
        messages.error(request, error.detail)
        return redirect(back)
    return redirect("game", game_id=game.pk)
