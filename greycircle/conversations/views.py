"""The pages of messages between friends: `/messages/` (my conversations, and starting one with a
friend) and `/messages/<username>/` (the thread). Both work as plain pages with forms posting to
views that call the services; frontend/js/messages.js sends through the API and follows
`ws/me/` instead when it runs.

Opening a friend's thread starts the conversation if there is none yet (as the API's POST
does): it is what the friends page's and the profile's "Message" links lead to.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from accounts import selectors as accounts_selectors
from greycircle.conversations import selectors, services
from greycircle.conversations.errors import ConversationNotFound
from greycircle.errors import ServiceError

# Conversations listed, and messages shown on opening a thread (older ones: the API's pages).
LIST_SIZE = 50
THREAD_SIZE = 50


@login_required
@require_http_methods(["GET", "POST"])
def conversations_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    if request.method == "POST":
        username = request.POST.get("username", "")
        try:
            services.conversation_start(user=user, username=username)
        except ServiceError as error:
            messages.error(request, error.detail)
            return redirect("messages")
        return redirect("messages-thread", username=username.strip())
    conversations = list(selectors.conversations_for(user=user)[:LIST_SIZE])
    summaries = selectors.conversation_summaries(user=user, conversations=conversations)
    talking_with = {summary.other.pk for summary in summaries}
    friends = [
        friendship.friend
        for friendship in accounts_selectors.friends_of(user=user)
        if friendship.friend_id not in talking_with
    ]
    return render(request, "conversations/list.html", {"summaries": summaries, "friends": friends})


@login_required
@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def thread_page(request: HttpRequest, username: str) -> HttpResponse:
    user = request.user
    conversation = selectors.conversation_between_named(user=user, username=username)
    if conversation is None:
        try:
            conversation = services.conversation_start(user=user, username=username)
        except ConversationNotFound:
            raise Http404 from None
        except ServiceError as error:
            messages.error(request, error.detail)
            return redirect("messages")
    summary = selectors.conversation_summary(user=user, conversation_id=conversation.pk)
    if request.method == "POST":
        try:
            services.direct_message_send(
                user=user, conversation_id=conversation.pk, body=request.POST.get("body", "")
            )
        except ServiceError as error:
            messages.error(request, error.detail)
        return redirect("messages-thread", username=summary.other.username)
    shown = list(selectors.messages_for(user=user, conversation=conversation)[:THREAD_SIZE])
    shown.reverse()
    services.conversation_read(user=user, conversation_id=conversation.pk)
    friends = accounts_selectors.are_friends(user=user, other=summary.other)
    return render(
        request,
        "conversations/thread.html",
        {
            "summary": summary,
            "other": summary.other,
            "shown": shown,
            "friends": friends,
            "older": len(shown) == THREAD_SIZE,
        },
    )
