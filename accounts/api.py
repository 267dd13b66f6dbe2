"""`/api/v1/me/` (the signed-in user and their settings), guests, friends and blocks.

Library seam (UPGRADING.md, "django-allauth", "djangorestframework"): django-allauth==65.22.1,
djangorestframework==3.18.3. A guest's app session is made with
`allauth.headless.internal.sessionkit.new_session()` (no public API makes the session an
`X-Session-Token` names), on DRF's `Request._request`.

Thin: parse, call a service or selector (accounts.friends, accounts.selectors), serialise. Each
operation's schema lists the error codes it can answer.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from allauth.headless import app_settings
from allauth.headless.internal import sessionkit
from django.contrib.auth import HASH_SESSION_KEY, login, logout, update_session_auth_hash
from django.contrib.sessions.backends.base import SessionBase
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from accounts import friends, guests, selectors
from accounts.adapter import client_ip
from accounts.data import account_data_export
from accounts.deletion import account_delete
from accounts.errors import AccountInvalid, AccountPermissionDenied
from accounts.models import Block, FriendRequest, Friendship, User
from accounts.serializers import (
    AccountDataSerializer,
    AccountDeleteSerializer,
    BlockSerializer,
    FriendRequestDirection,
    FriendRequestQuerySerializer,
    FriendRequestSentSerializer,
    FriendRequestSentStatus,
    FriendRequestSerializer,
    FriendSerializer,
    GuestCreateSerializer,
    GuestSessionSerializer,
    GuestUpgradeSerializer,
    MeSerializer,
    UsernameSerializer,
)
from accounts.services import user_settings_update
from accounts.views import GUEST_BACKEND
from greycircle.api.schema import error_response
from greycircle.converters import ROW_ID_SCHEMA
from greycircle.games import selectors as game_selectors
from greycircle.notifications.presence import users_online


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


class MeView(GenericAPIView):
    serializer_class = MeSerializer
    schema = DeleteWithBodySchema()

    @extend_schema(summary="Me and my settings")
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request.user).data)

    @extend_schema(summary="Change my settings")
    def patch(self, request: Request) -> Response:
        serializer = MeSerializer(request.user, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        user = user_settings_update(user=request.user, changes=serializer.validated_data)
        return Response(MeSerializer(user).data)

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


# --- Guests: `/api/v1/guest/` and `/api/v1/me/upgrade/` ----------------------------------------


class GuestCreateThrottle(BaseThrottle):
    """Guest accounts made per client address: the budget the site's "Play now as a guest" uses
    (accounts.guests.GUESTS_PER_HOUR), shared with it, so neither way makes unlimited accounts.
    A signed-in request makes no account and is not counted."""

    retry_after: int | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.user.is_authenticated:
            return True
        self.retry_after = guests.guest_allowance_take(ip=client_ip(request._request) or "unknown")
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
        http_request.session.set_expiry(timedelta(days=guests.idle_days()))
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
            guest, game = guests.guest_create(), None
        else:
            guest, game = guests.guest_game_start(user=None, kind=kind)
        token = _session_token_login(request, guest)
        body = {
            "session_token": token,
            "user": MeSerializer(guest).data,
            "game": None if game is None else game_selectors.game_view_for(game=game, viewer=guest),
        }
        return Response(body, status=status.HTTP_201_CREATED)


class GuestUpgradeView(GenericAPIView):
    serializer_class = GuestUpgradeSerializer

    @extend_schema(
        summary="Become a full account",
        description="A guest picks a username, e-mail address and password, checked as sign-up "
        "checks them (`fields` says what is wrong). The same account becomes a full one, so "
        "every game, rating and statistic stays; the address is unverified and gets a "
        "confirmation mail. The session token (or session) stays valid, for the site's usual "
        "session length from now on.",
        request=GuestUpgradeSerializer,
        responses={
            200: MeSerializer,
            400: error_response(
                "Not a guest, or a field is not valid.", "invalid", "not_a_guest", "username_taken"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        user = request.user
        if not user.is_guest:
            raise AccountInvalid("not_a_guest", "This account is not a guest account.")
        serializer = GuestUpgradeSerializer(data=request.data, context={"user": user})
        serializer.is_valid(raise_exception=True)
        address = guests.guest_upgrade(user=user, **serializer.validated_data)
        if isinstance(request.auth, SessionBase):  # an app's session token: keep it valid
            request.auth[HASH_SESSION_KEY] = user.get_session_auth_hash()
            request.auth.set_expiry(None)
            request.auth.save()
        else:  # a browser's session: the new password keeps it signed in
            update_session_auth_hash(request._request, user)
            request._request.session.set_expiry(None)
        address.send_confirmation(request._request, signup=True)
        return Response(MeSerializer(user).data)


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


# --- Friends and blocks: `/api/v1/friends/`, `/api/v1/friends/requests/`, `/api/v1/blocks/` ----

NO_SUCH_REQUEST = {404: error_response("No such friend request (of mine).", "not_found")}
USER_NOT_FOUND = error_response("No active user has that username.", "user_not_found")


def _user_id_parameter(description: str) -> OpenApiParameter:
    return OpenApiParameter("id", ROW_ID_SCHEMA, OpenApiParameter.PATH, description=description)


class FriendViewSet(viewsets.GenericViewSet):
    serializer_class = FriendSerializer
    lookup_value_converter = "id"

    def get_queryset(self):
        return Friendship.objects.none()

    @extend_schema(
        summary="My friends",
        description="By username, each with `online`: whether they have a live connection to "
        "the site now (a page or an app with its `ws/` socket open).",
        responses={
            200: FriendSerializer(many=True),
            400: error_response("A page parameter is not valid.", "invalid", "invalid_page"),
            404: error_response("There is no such page.", "invalid_page"),
        },
    )
    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.friends_of(user=request.user))
        online = users_online(friendship.friend_id for friendship in page)
        data = FriendSerializer(page, many=True, context={"online": online}).data
        return self.get_paginated_response(data)

    @extend_schema(
        summary="Remove a friend",
        description="Ends the friendship for both of us. The path holds the friend's user id.",
        parameters=[_user_id_parameter("The friend's user id.")],
        responses={
            204: None,
            404: error_response("That user is not my friend.", "not_friends"),
        },
    )
    def destroy(self, request: Request, pk: str) -> Response:
        friends.friend_remove(user=request.user, friend_id=int(pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class FriendRequestViewSet(viewsets.GenericViewSet):
    serializer_class = FriendRequestSerializer
    lookup_value_converter = "id"

    def get_queryset(self):
        return FriendRequest.objects.none()

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "viewer": self.request.user}

    @extend_schema(
        summary="My pending friend requests",
        description="Sent to me and sent by me, newest first (`direction` filters them).",
        parameters=[FriendRequestQuerySerializer],
        responses={
            200: FriendRequestSerializer(many=True),
            400: error_response(
                "A filter or page parameter is not valid.", "invalid", "invalid_page"
            ),
            404: error_response("There is no such page.", "invalid_page"),
        },
    )
    def list(self, request: Request) -> Response:
        query = FriendRequestQuerySerializer(
            data={name: value for name, value in request.query_params.items() if value}
        )
        query.is_valid(raise_exception=True)
        direction = query.validated_data.get("direction")
        if direction == FriendRequestDirection.INCOMING:
            requests = selectors.friend_requests_incoming(user=request.user)
        elif direction == FriendRequestDirection.OUTGOING:
            requests = selectors.friend_requests_outgoing(user=request.user)
        else:
            requests = selectors.friend_requests_of(user=request.user)
        page = self.paginate_queryset(requests)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        summary="Send a friend request",
        description="Asks the user called `username` (matched ignoring case). If they had already "
        "asked me, their request is accepted instead and we are friends (`status: friends`). "
        "They get a `friend_request` (or `friend_accepted`) event on `ws/me/`.",
        request=UsernameSerializer,
        responses={
            201: FriendRequestSentSerializer,
            400: error_response(
                "The request cannot be sent.",
                "cannot_befriend_yourself",
                "already_friends",
                "already_requested",
                "user_blocked",
            ),
            403: error_response(
                "This user cannot be asked, or I am a guest.",
                "friend_request_refused",
                "guest_account",
            ),
            404: USER_NOT_FOUND,
            429: error_response(
                "Too many friend requests lately; try again in an hour.",
                "too_many_friend_requests",
            ),
        },
    )
    def create(self, request: Request) -> Response:
        serializer = UsernameSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        sent = friends.friend_request_send(
            sender=request.user, username=serializer.validated_data["username"]
        )
        body = {
            "status": FriendRequestSentStatus.REQUESTED
            if sent.request
            else FriendRequestSentStatus.FRIENDS,
            "request": self.get_serializer(sent.request).data if sent.request else None,
            "friend": FriendSerializer(sent.friendship).data if sent.friendship else None,
        }
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Accept a friend request",
        description="Only its recipient may. The sender gets a `friend_accepted` event.",
        request=None,
        responses={
            200: FriendSerializer,
            403: error_response("Only the recipient may accept.", "not_recipient"),
            **NO_SUCH_REQUEST,
        },
    )
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, pk: str) -> Response:
        friendship = friends.friend_request_accept(user=request.user, request_id=int(pk))
        return Response(FriendSerializer(friendship).data)

    @extend_schema(
        summary="Decline a friend request",
        description="Only its recipient may. The sender is not told.",
        request=None,
        responses={
            204: None,
            403: error_response("Only the recipient may decline.", "not_recipient"),
            **NO_SUCH_REQUEST,
        },
    )
    @action(detail=True, methods=["post"])
    def decline(self, request: Request, pk: str) -> Response:
        friends.friend_request_decline(user=request.user, request_id=int(pk))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Cancel a friend request I sent",
        request=None,
        responses={
            204: None,
            403: error_response("Only the sender may cancel.", "not_sender"),
            **NO_SUCH_REQUEST,
        },
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        friends.friend_request_cancel(user=request.user, request_id=int(pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class BlockViewSet(viewsets.GenericViewSet):
    serializer_class = BlockSerializer
    lookup_value_converter = "id"

    def get_queryset(self):
        return Block.objects.none()

    @extend_schema(
        summary="Users I blocked",
        description="By username. Blocking works both ways: neither of us can befriend, invite "
        "or remind the other.",
        responses={
            200: BlockSerializer(many=True),
            400: error_response("A page parameter is not valid.", "invalid", "invalid_page"),
            404: error_response("There is no such page.", "invalid_page"),
        },
    )
    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.blocked_by(user=request.user))
        return self.get_paginated_response(BlockSerializer(page, many=True).data)

    @extend_schema(
        summary="Block a user",
        description="Ends our friendship and any pending friend request between us. The blocked "
        "user is not told.",
        request=UsernameSerializer,
        responses={
            201: BlockSerializer,
            400: error_response(
                "The user cannot be blocked.", "cannot_block_yourself", "already_blocked"
            ),
            404: USER_NOT_FOUND,
        },
    )
    def create(self, request: Request) -> Response:
        serializer = UsernameSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        block = friends.user_block(
            blocker=request.user, username=serializer.validated_data["username"]
        )
        return Response(BlockSerializer(block).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Unblock a user",
        description="The path holds the blocked user's id. A friendship the block ended stays "
        "ended.",
        parameters=[_user_id_parameter("The blocked user's id.")],
        responses={204: None, 404: error_response("I have not blocked that user.", "not_blocked")},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        friends.user_unblock(blocker=request.user, blocked_id=int(pk))
        return Response(status=status.HTTP_204_NO_CONTENT)
