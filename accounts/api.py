"""`/api/v1/me/` (the signed-in user and their settings), a guest becoming a full account,
friends and blocks. Making a guest, deleting my account and my data are greycircle.players'
(greycircle.players.api: they reach games, the inbox and ratings).

Library seam (UPGRADING.md, "djangorestframework"): djangorestframework==3.18.3. A guest's upgrade
renews its session on DRF's `Request._request`.

Thin: parse, call a service or selector (accounts.friends, accounts.selectors), serialise. Each
operation's schema lists the error codes it can answer.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import HASH_SESSION_KEY, update_session_auth_hash
from django.contrib.sessions.backends.base import SessionBase
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import friends, guests, selectors
from accounts.errors import AccountInvalid
from accounts.models import Block, FriendRequest, Friendship
from accounts.serializers import (
    BlockSerializer,
    FriendRequestDirection,
    FriendRequestQuerySerializer,
    FriendRequestSentSerializer,
    FriendRequestSentStatus,
    FriendRequestSerializer,
    FriendSerializer,
    GuestUpgradeSerializer,
    MeSerializer,
    UsernameSerializer,
)
from accounts.services import user_settings_update
from greycircle.api.schema import error_response
from greycircle.converters import ROW_ID_SCHEMA
from greycircle.presence import users_online


# Me and my settings. `/api/v1/me/` is greycircle.players.api.MeView, which adds deleting my
# account to these (and, by its `serializer_class`, what the platform adds to me).
class MeView(GenericAPIView):
    serializer_class = MeSerializer

    @extend_schema(summary="Me and my settings")
    def get(self, request: Request) -> Response:
        return Response(self.get_serializer(request.user).data)

    @extend_schema(summary="Change my settings")
    def patch(self, request: Request) -> Response:
        serializer = self.get_serializer(request.user, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        user = user_settings_update(user=request.user, changes=serializer.validated_data)
        return Response(self.get_serializer(user).data)


# --- Guests: `/api/v1/me/upgrade/` ----------------------------------------------------------


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
