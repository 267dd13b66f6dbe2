"""`/api/v1/conversations/`: my conversations with friends, their messages, reading them.

Thin: parse, call a selector or service (greycircle.conversations), serialise. Only the two
participants see a conversation: anyone else's id is `conversation_not_found`. New messages and
unread counts also arrive on `ws/me/` (`direct_message`, `messages_unread`).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.pagination import Pagination
from greycircle.api.schema import error_response
from greycircle.conversations import selectors, services
from greycircle.conversations.models import Conversation
from greycircle.conversations.serializers import (
    ConversationReadResultSerializer,
    ConversationReadSerializer,
    ConversationSerializer,
    ConversationStartSerializer,
    DirectMessageSendSerializer,
    DirectMessageSerializer,
    MessagesQuerySerializer,
)

NOT_FOUND = error_response("No such conversation of mine.", "conversation_not_found")
REFUSED = error_response(
    "I may not message this player: we are not friends, or a block stands between us (which of "
    "us blocked is never said), or the moderators muted me (`until`), or their account is "
    "closed.",
    "not_friends",
    "blocked",
    "chat_muted",
    "closed_account",
)


class ConversationsPagination(Pagination):
    """A page of conversations or messages, with how many messages of all of mine are unread
    (`messages_unread_count`, the navigation's badge: a client that reconnects corrects it)."""

    messages_unread_count = 0

    def get_paginated_response(self, data: Any) -> Response:
        response = super().get_paginated_response(data)
        response.data["messages_unread_count"] = self.messages_unread_count
        return response

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["messages_unread_count"] = {
            "type": "integer",
            "description": "My unread messages in all conversations (not only on this page).",
        }
        paginated["required"] = [*paginated.get("required", []), "messages_unread_count"]
        return paginated


class ConversationViewSet(viewsets.GenericViewSet):
    serializer_class = ConversationSerializer
    pagination_class = ConversationsPagination
    lookup_value_converter = "id"

    def _page(self, data: Any) -> Response:
        self.paginator.messages_unread_count = selectors.messages_unread_count(
            user=self.request.user
        )
        return self.get_paginated_response(data)

    def get_queryset(self):
        return Conversation.objects.none()

    @extend_schema(
        summary="My conversations",
        description="With unread messages first, then by the newest message; paginated, with "
        "`messages_unread_count` (all of mine). Each names the friend, the last message visible "
        "to me, and how many of theirs I have not read.",
        responses={200: ConversationSerializer(many=True)},
    )
    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.conversations_for(user=request.user))
        summaries = selectors.conversation_summaries(user=request.user, conversations=page)
        return self._page(ConversationSerializer(summaries, many=True).data)

    @extend_schema(
        summary="Start a conversation with a friend",
        description="Only with a friend. Starting one that exists answers it (200).",
        request=ConversationStartSerializer,
        responses={
            201: ConversationSerializer,
            200: ConversationSerializer,
            400: error_response(
                "Not a conversation to have.", "invalid", "cannot_message_yourself"
            ),
            403: REFUSED,
            404: error_response("No such player.", "user_not_found"),
        },
    )
    def create(self, request: Request) -> Response:
        serializer = ConversationStartSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        existed = selectors.conversation_between_named(
            user=request.user, username=serializer.validated_data["username"]
        )
        conversation = services.conversation_start(
            user=request.user, username=serializer.validated_data["username"]
        )
        summary = selectors.conversation_summary(user=request.user, conversation_id=conversation.pk)
        return Response(
            ConversationSerializer(summary).data,
            status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED,
        )

    @extend_schema(
        summary="A conversation of mine",
        responses={200: ConversationSerializer, 404: NOT_FOUND},
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        summary = selectors.conversation_summary(user=request.user, conversation_id=int(pk))
        return Response(ConversationSerializer(summary).data)

    @extend_schema(
        methods=["GET"],
        summary="A conversation's messages",
        description="Newest first, paginated, with `messages_unread_count`; `after`: only those "
        "after that message id (what came since the last one shown). Each `body` is plain text: "
        "show it as text.",
        parameters=[MessagesQuerySerializer],
        responses={
            200: DirectMessageSerializer(many=True),
            400: error_response("A parameter is not valid.", "invalid", "invalid_page"),
            404: NOT_FOUND,
        },
    )
    @extend_schema(
        methods=["POST"],
        summary="Send a message",
        description="Plain text of at most 500 characters (white space runs are kept as one "
        "space). The other person gets it on `ws/me/` and is notified as they chose. Limited "
        "per sender: `429 too_many_messages` with `Retry-After`.",
        request=DirectMessageSendSerializer,
        responses={
            201: DirectMessageSerializer,
            400: error_response(
                "The message cannot be sent as it is.",
                "invalid",
                "message_empty",
                "message_too_long",
                "message_invalid",
            ),
            403: REFUSED,
            404: NOT_FOUND,
            429: error_response(
                "Too many messages; wait the seconds in `Retry-After`.",
                "too_many_messages",
                "throttled",
            ),
        },
    )
    @action(detail=True, methods=["get", "post"])
    def messages(self, request: Request, pk: str) -> Response:
        if request.method == "POST":
            serializer = DirectMessageSendSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            message = services.direct_message_send(
                user=request.user, conversation_id=int(pk), body=serializer.validated_data["body"]
            )
            return Response(DirectMessageSerializer(message).data, status=status.HTTP_201_CREATED)
        query = MessagesQuerySerializer(
            data={name: value for name, value in request.query_params.items() if value}
        )
        query.is_valid(raise_exception=True)
        conversation = selectors.conversation_of(user=request.user, conversation_id=int(pk))
        messages = selectors.messages_for(
            user=request.user, conversation=conversation, after=query.validated_data.get("after")
        )
        page = self.paginate_queryset(messages)
        return self._page(DirectMessageSerializer(page, many=True).data)

    @extend_schema(
        summary="Mark a conversation read",
        description="Up to the message `up_to` (default: the last). My other tabs and apps get "
        "`messages_unread` on `ws/me/`; the conversation's notification is read too.",
        request=ConversationReadSerializer,
        responses={
            200: ConversationReadResultSerializer,
            400: error_response("A parameter is not valid.", "invalid"),
            404: NOT_FOUND,
        },
    )
    @action(detail=True, methods=["post"])
    def read(self, request: Request, pk: str) -> Response:
        serializer = ConversationReadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        unread = services.conversation_read(
            user=request.user, conversation_id=int(pk), up_to=serializer.validated_data.get("up_to")
        )
        body = {
            "unread_count": unread,
            "messages_unread_count": selectors.messages_unread_count(user=request.user),
        }
        return Response(ConversationReadResultSerializer(body).data)
