"""`/api/v1/guest/` (a guest, with a game against the computer), deleting my account
(`DELETE /api/v1/me/`) and downloading my data (`/api/v1/me/data/`).

Library seam (UPGRADING.md, "django-allauth", "djangorestframework"): django-allauth==65.22.1,
djangorestframework==3.18.3. A guest's app session is made with
`allauth.headless.internal.sessionkit.new_session()` (no public API makes the session an
`X-Session-Token` names), on DRF's `Request._request`.

Thin: parse, call a service (greycircle.players.guests, .deletion, .data), serialise. Each
operation's schema lists the error codes it can answer.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from allauth.headless import app_settings
from allauth.headless.internal import sessionkit
from django.contrib.auth import login, logout
from django.contrib.sessions.backends.base import SessionBase
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from accounts import api as accounts_api
from accounts import guests as guest_accounts
from accounts.adapter import client_ip
from accounts.errors import AccountPermissionDenied
from accounts.models import User
from accounts.serializers import MeSerializer
from greycircle.api.schema import error_response
from greycircle.games import selectors as game_selectors
from greycircle.moderation.serializers import MeWithSanctionsSerializer
from greycircle.players.data import account_data_export
from greycircle.players.deletion import account_delete
from greycircle.players.guests import guest_game_start
from greycircle.players.serializers import (
    AccountDataSerializer,
    AccountDeleteSerializer,
    GuestCreateSerializer,
    GuestSessionSerializer,
)
from greycircle.players.views import GUEST_BACKEND


class DeleteWithBodySchema(AutoSchema):
    """Documents the body of a DELETE too (drf-spectacular documents those of POST, PUT and
    PATCH only): deleting my account takes its confirmation in the body."""

    def _get_request_body(self, direction: str = "request") -> Any:
        if self.method != "DELETE":
            return super()._get_request_body(direction)
        self.method = "POST"
        try:
            return super()._get_request_body(direction)
        finally:
            self.method = "DELETE"


# accounts' `/api/v1/me/` (me and my settings, with the moderators' sanctions in force on me),
# and deleting my account, which settles my games and erases my inbox and ratings. (No docstring:
# drf-spectacular would make it the operations' description.)
class MeView(accounts_api.MeView):
    schema = DeleteWithBodySchema()
    serializer_class = MeWithSanctionsSerializer

    @extend_schema(
        summary="Delete my account",
        description="Confirmed with my `password` (a guest, who has none, sends "
        "`confirm: true`). My games in play are resigned, tables I set up that have not started "
        "are withdrawn, invitations to me are declined; finished games stay, my seat shown as "
        '"deleted player". My username, e-mail, settings, friends, blocks, ratings and '
        "notifications are gone, and this session (or session token) ends.",
        request=AccountDeleteSerializer,
        responses={
            204: None,
            400: error_response(
                "Not confirmed; nothing changed.", "wrong_password", "confirmation_required"
            ),
        },
    )
    def delete(self, request: Request) -> Response:
        serializer = AccountDeleteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        account_delete(user=request.user, **serializer.validated_data)
        if isinstance(request.auth, SessionBase):  # an app's session token
            request.auth.flush()
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Guests: `/api/v1/guest/` (becoming a full account is accounts': `/api/v1/me/upgrade/`) ----


class GuestCreateThrottle(BaseThrottle):
    """Guest accounts made per client address: the budget the site's "Play now as a guest" uses
    (accounts.guests.GUESTS_PER_HOUR), shared with it, so neither way makes unlimited accounts.
    A signed-in request makes no account and is not counted."""

    retry_after: int | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.user.is_authenticated:
            return True
        self.retry_after = guest_accounts.guest_allowance_take(
            ip=client_ip(request._request) or "unknown"
        )
        return self.retry_after is None

    def wait(self) -> float | None:
        return self.retry_after


def _session_token_login(request: Request, user: User) -> str:
    """Sign `user` in on a new session of their own, as allauth headless signs apps in, and
    return its key: the app's session token (X-Session-Token)."""
    http_request = request._request
    cookie_session, cookie_user = http_request.session, http_request.user
    http_request.session = sessionkit.new_session()
    try:
        login(http_request, user, backend=GUEST_BACKEND)
        # The token is the guest's only way in: it lasts as long as they may stay idle.
        http_request.session.set_expiry(timedelta(days=guest_accounts.idle_days()))
        http_request.session.save()
        return app_settings.TOKEN_STRATEGY.create_session_token(http_request)
    finally:
        http_request.session, http_request.user = cookie_session, cookie_user


class GuestCreateView(GenericAPIView):
    serializer_class = GuestSessionSerializer
    permission_classes = [AllowAny]
    throttle_classes = [*api_settings.DEFAULT_THROTTLE_CLASSES, GuestCreateThrottle]

    @extend_schema(
        summary="Play as a guest",
        description="Makes a guest account (a generated name like `guest-7k3x9q`, no e-mail, no "
        "password) and signs it in: the answer's `session_token` is its `X-Session-Token`. "
        "With `kind`, also starts a game of that kind against the easiest computer player, as "
        'the site\'s "Play now as a guest" does. Become a full account, games and all, with '
        "`POST /api/v1/me/upgrade/`. Until then a guest cannot befriend, invite or be invited, "
        "and is removed after `GUESTS_IDLE_DAYS` without a request. Ten guests an hour per "
        "client address, shared with the site.",
        request=GuestCreateSerializer,
        responses={
            201: GuestSessionSerializer,
            400: error_response("The game cannot be started as asked.", "unknown_kind"),
            403: error_response("Signed in already: sign out first.", "already_signed_in"),
            429: error_response(
                "Too many guest accounts from this address; wait the seconds in `Retry-After`.",
                "throttled",
            ),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        if request.user.is_authenticated:
            raise AccountPermissionDenied("already_signed_in", "You are signed in already.")
        serializer = GuestCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        kind = serializer.validated_data.get("kind")
        if kind is None:
            guest, game = guest_accounts.guest_create(), None
        else:
            guest, game = guest_game_start(user=None, kind=kind)
        token = _session_token_login(request, guest)
        body = {
            "session_token": token,
            "user": MeSerializer(guest).data,
            "game": None if game is None else game_selectors.game_view_for(game=game, viewer=guest),
        }
        return Response(body, status=status.HTTP_201_CREATED)


class MeDataView(GenericAPIView):
    serializer_class = AccountDataSerializer

    @extend_schema(
        summary="Download my data",
        description="Everything the site keeps about me: profile, settings, every game I have a "
        "seat in (with its move log as I may see it), friends, pending friend requests, blocks, "
        "ratings and notifications.",
    )
    def get(self, request: Request) -> Response:
        return Response(AccountDataSerializer(account_data_export(user=request.user)).data)
