from functools import cache

import factory
from django.contrib.auth.hashers import make_password

from accounts.models import User

PASSWORD = "correct-horse-battery"


@cache
def password_hash() -> str:
    """PASSWORD hashed once per test run, with the real hasher: hashing costs a tenth of a
    second or more, far more than the rest of creating a user. (Every factory user shares the
    salt, which is harmless in tests; servers started by tests verify it like any hash.)"""
    return make_password(PASSWORD)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.LazyFunction(password_hash)


def moderator_make(username: str = "mod") -> User:
    """A staff account in the Moderators group, not a superuser. The group is made sure of
    first: a post_migrate receiver keeps it, and a test database flushed by an earlier
    transactional test may not have it yet."""
    from django.contrib.auth.models import Group

    from greycircle.moderation.permissions import MODERATORS_GROUP, moderators_group_ensure

    moderators_group_ensure()
    user = UserFactory(username=username, is_staff=True)
    user.groups.add(Group.objects.get(name=MODERATORS_GROUP))
    return user


def befriend(a, b):
    """`a` asks `b` to be friends and `b` accepts (through the services); the friendship."""
    from accounts import friends

    sent = friends.friend_request_send(sender=a, username=b.username)
    return friends.friend_request_accept(user=b, request_id=sent.request.pk)


def let_anyone_invite(*users) -> None:
    """Turn on `accept_invitations_from_anyone` for `users` (in the database and in memory)."""
    for user in users:
        user.accept_invitations_from_anyone = True
        User.objects.filter(pk=user.pk).update(accept_invitations_from_anyone=True)


def accept_invitations(game_id: int) -> None:
    """Every pending invitation to the game accepted by its invitee (through the service)."""
    from greycircle.games import invitations
    from greycircle.games.models import Invitation, InvitationStatus

    pending = Invitation.objects.filter(game_id=game_id, status=InvitationStatus.PENDING)
    for invitation in pending.select_related("invitee").order_by("seat"):
        invitations.invitation_accept(invitation_id=invitation.pk, user=invitation.invitee)


def game_started(*, creator, kind, opponents, **options):
    """`services.game_create`, with every invited player accepting at once: a game between people
    that is already in play, for tests about playing it rather than about inviting.

    The invited players are let accept invitations from anyone (unless they are friends of the
    creator already), so the consent rule itself is left as it is.
    """
    from accounts.selectors import are_friends
    from greycircle.games import services
    from greycircle.games.models import Game

    let_anyone_invite(
        *(
            spec.user
            for spec in opponents
            if spec.user is not None and not are_friends(user=creator, other=spec.user)
        )
    )
    game = services.game_create(creator=creator, kind=kind, opponents=opponents, **options)
    accept_invitations(game.pk)
    return Game.objects.with_seats().get(pk=game.pk)


def session_cookie(user) -> bytes:
    """A `Cookie` header's value signing `user` in, for a socket opened without a browser."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()
