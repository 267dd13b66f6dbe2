"""A player's answer to a moderators' notice shown on every page (templatetags.moderation_notices):
acknowledging a warning or a rename, after which it is no longer shown."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from greycircle.moderation.errors import ModerationNotFound
from greycircle.moderation.sanctions import sanction_acknowledge


@login_required
@require_POST
def notice_acknowledge(request: HttpRequest, sanction_id: int) -> HttpResponse:
    """Acknowledge one of my notices, then go back to the page it was shown on."""
    try:
        sanction_acknowledge(user=request.user, sanction_id=sanction_id)
    except ModerationNotFound as error:
        raise Http404(error.detail) from None
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = "home"
    return redirect(back)
