"""The daily digest: one e-mail a day listing every game waiting on the player.

For players who ask for it (`email_digest`, off by default; apart from the e-mail of each turn,
which they may keep on or off). The games are those of their "Waiting on you" list
(greycircle.games.selectors.games_for_user, `my_turn`): their move in a game in play, or an
invitation to answer. A digest goes only when at least one game waits, to a verified primary
address (as every mail: greycircle.notifications.mail), not while the player is on the site
unless they want e-mail then too (the list is in front of them: the sweep tries again later),
and at most once in
DIGEST_INTERVAL: a DigestSent row per player is claimed, in the sweep's transaction that queues
the mail, so two workers' sweeps never both send one. A crash or a mail server refusing after
the claim loses that day's digest rather than risk two.

The sweep (mail_tasks.digests_send, registered in apps.py) runs every DIGEST_SWEEP_PERIOD in every
worker; with nothing due it costs one query. The mail says what the lists on the site say of
each game (its title, the other players, what it waits for, the link), never its state: no
cards of any hand, no stock, no seed.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from allauth.account.models import EmailAddress
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, QuerySet
from django.urls import reverse

from accounts.models import User
from greycircle.games.models import Game, GameStatus, Invitation, InvitationStatus, Seat
from greycircle.games.selectors import MyGames, games_for_user
from greycircle.notifications.mail import (
    PREFERENCE_TOPIC,
    mail_address,
    mail_message,
    site_url,
    unsubscribe_token,
)
from greycircle.notifications.models import DigestSent
from greycircle.notifications.texts import game_title, names

logger = logging.getLogger(__name__)

DIGEST_INTERVAL = timedelta(hours=24)
DIGEST_SWEEP_PERIOD = timedelta(minutes=10)
# Digests queued by one sweep at most; the rest wait for the next round.
DIGEST_BATCH = 200
PREFERENCE = "email_digest"


def digest_sweep_period() -> timedelta:
    return DIGEST_SWEEP_PERIOD


def digests_due(*, now: datetime) -> QuerySet[User]:
    """Players whose digest is due: asked for, not sent within DIGEST_INTERVAL, a verified
    address, and a game waiting on them (their move, or an invitation to answer)."""
    my_move = Seat.objects.filter(
        user=OuterRef("pk"),
        ai_level="",  # a seat a computer took over waits on nobody
        game__status=GameStatus.ACTIVE,
        game__to_move=F("index"),
    )
    my_answer = Invitation.objects.filter(
        invitee=OuterRef("pk"), status=InvitationStatus.PENDING, game__status=GameStatus.OPEN
    )
    return (
        User.objects.filter(email_digest=True, is_active=True)
        .exclude(
            pk__in=DigestSent.objects.filter(sent_at__gt=now - DIGEST_INTERVAL).values("recipient")
        )
        .filter(
            Exists(EmailAddress.objects.filter(user=OuterRef("pk"), primary=True, verified=True))
        )
        .filter(Exists(my_move) | Exists(my_answer))
        .order_by("pk")
    )


def digest_claim(*, user_id: int, now: datetime) -> bool:
    """Record that `user_id`'s digest goes now, unless one went within DIGEST_INTERVAL (or
    another worker claimed it meanwhile); whether it is ours to send."""
    if DigestSent.objects.filter(recipient_id=user_id, sent_at__lte=now - DIGEST_INTERVAL).update(
        sent_at=now
    ):
        return True
    if DigestSent.objects.filter(recipient_id=user_id).exists():
        return False
    try:
        with transaction.atomic():
            DigestSent.objects.create(recipient_id=user_id, sent_at=now)
    except IntegrityError:
        return False
    return True


def digest_games(*, user: User) -> list[Game]:
    """The games waiting on `user`, as their "Waiting on you" list has them (newest first)."""
    return list(games_for_user(user=user, which=MyGames.MY_TURN))


def digest_mail_deliver(*, user_id: int) -> bool:
    """Send `user_id`'s digest (claimed by the sweep) if they still want it and a game still
    waits; True if sent. A mail server's error is raised: the task fails, not retried."""
    user = User.objects.filter(pk=user_id, is_active=True, email_digest=True).first()
    if user is None:
        return False
    address = mail_address(user)
    games = digest_games(user=user)
    if address is None or not games:
        logger.info(
            "digest of user %s not sent: %s", user_id, "no games" if address else "no address"
        )
        return False
    digest_message(user=user, games=games, address=address).send()
    logger.info("digest of %d games mailed to user %s", len(games), user_id)
    return True


def _line(game: Game, *, user: User) -> dict[str, str]:
    """What the mail says of one game: its title, the others at its table, what it waits for."""
    others = names(
        [seat.name for seat in game.seats.all() if seat.user_id != user.pk and not seat.is_open]
    )
    waits = "your move" if game.status == GameStatus.ACTIVE else "your answer to the invitation"
    return {
        "title": game_title(game.kind),
        "others": others,
        "waits": waits,
        "url": site_url(reverse("game", args=[game.pk])),
    }


def digest_message(*, user: User, games: list[Game], address: str) -> EmailMultiAlternatives:
    """The digest of `games` for `user` to `address`, in text and HTML, with one-click unsubscribe
    (RFC 8058) from the digest."""
    unsubscribe = site_url(
        reverse("unsubscribe", args=[unsubscribe_token(user_id=user.pk, preference=PREFERENCE)])
    )
    count = len(games)
    subject = "A game is waiting on you" if count == 1 else f"{count} games are waiting on you"
    context = {
        "user": user,
        "subject": subject,
        "games": [_line(game, user=user) for game in games],
        "url": site_url(reverse("my-games")),
        "topic": PREFERENCE_TOPIC[PREFERENCE],
        "unsubscribe_url": unsubscribe,
        "settings_url": site_url(reverse("settings")),
        "site_url": site_url("/"),
    }
    return mail_message(
        template="notifications/email/digest", subject=subject, address=address, context=context
    )
