"""Sanctions: what staff do to a player about their conduct (warn, mute the chat, bar from rated
games, rename an offensive username, deactivate), and lifting them again.

Each service is one transaction that changes the player, keeps the `Sanction`, records the
action in the moderation log with staff's reason (`services.moderation_record`) and tells the
player (`signals.moderation_notice`, which the inbox follows: push and e-mail as the player
chose). The effect is kept on the user, where every check reads the row it has already:
`chat_muted_until` (game chat and messages refuse a muted player), `rated_barred_until`
(greycircle.games.rated_bar refuses rated games), the username, `is_active`.

Several mutes (or bars) may overlap: the user's date is always the latest end among the active
ones, so lifting one keeps the others in force. Staff and superusers are sanctioned only by a
superuser, nobody by themselves.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from allauth.account.adapter import get_adapter
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone

from accounts.models import lookalike_exists
from greycircle.moderation import signals
from greycircle.moderation.errors import (
    ModerationInvalid,
    ModerationNotFound,
    ModerationPermissionDenied,
)
from greycircle.moderation.models import ModerationActionKind, Sanction, SanctionKind
from greycircle.moderation.services import (
    moderation_record,
    reason_clean,
    users_deactivate,
    users_reactivate,
)

if TYPE_CHECKING:
    from accounts.models import User

DAYS_MIN, DAYS_MAX = 1, 365
NOTICE_MAX_LENGTH = 1000
# The user's field that holds the end of each timed kind, read by the checks of its effect.
TIMED_FIELDS = {SanctionKind.MUTE: "chat_muted_until", SanctionKind.RATED_BAR: "rated_barred_until"}
# Notices without an end, shown to the player until they acknowledge them.
ACKNOWLEDGED_KINDS = (SanctionKind.WARN, SanctionKind.RENAME)
RENAME_PREFIX = "player-"
RENAME_ATTEMPTS = 20

DEFAULT_NOTICES = {
    SanctionKind.WARN: "A moderator has warned you about your conduct. Please keep to the "
    "site's rules and be kind to other players: further trouble may lead to a mute or a bar.",
    SanctionKind.MUTE: "A moderator has muted you: you cannot write in game chats or send "
    "messages for now.",
    SanctionKind.RATED_BAR: "A moderator has barred you from rated games for now. You can still "
    "play casual games.",
    SanctionKind.RENAME: "A moderator changed your username to {username}, because the old one "
    "broke the site's rules. Your games, friends and ratings are unchanged.",
    SanctionKind.DEACTIVATE: "A moderator has deactivated your account.",
}
LIFT_NOTICES = {
    SanctionKind.WARN: "A moderator withdrew the warning you were given.",
    SanctionKind.MUTE: "A moderator lifted your mute: you can write in chats again.",
    SanctionKind.RATED_BAR: "A moderator lifted your bar from rated games: you can play them "
    "again.",
    SanctionKind.RENAME: "A moderator gave you back your username, {username}.",
    SanctionKind.DEACTIVATE: "A moderator reactivated your account: welcome back.",
}
IMPOSED_ACTION = {
    SanctionKind.WARN: ModerationActionKind.SANCTION_WARN,
    SanctionKind.MUTE: ModerationActionKind.SANCTION_MUTE,
    SanctionKind.RATED_BAR: ModerationActionKind.SANCTION_RATED_BAR,
    SanctionKind.RENAME: ModerationActionKind.SANCTION_RENAME,
}


# --- selectors ---------------------------------------------------------------------------------


def sanctions_of(*, user_id: int) -> QuerySet[Sanction]:
    """Every sanction of user `user_id`, lifted or not, newest first (for staff only)."""
    return Sanction.objects.filter(user_id=user_id).select_related("created_by", "lifted_by")


def sanctions_active(*, user: User, now: datetime | None = None) -> QuerySet[Sanction]:
    """`user`'s sanctions in force at `now`, newest first: not lifted, a mute or bar not yet
    ended, a warning or rename not yet acknowledged, a deactivation."""
    return Sanction.objects.filter(in_force(now=now or timezone.now()), user_id=user.pk)


def in_force(*, now: datetime) -> Q:
    """The condition of a sanction in force at `now` (see `sanctions_active`)."""
    return Q(lifted_at__isnull=True) & (
        Q(kind__in=list(TIMED_FIELDS), until__gt=now)
        | Q(kind__in=list(ACKNOWLEDGED_KINDS), acknowledged_at__isnull=True)
        | Q(kind=SanctionKind.DEACTIVATE)
    )


# --- services ----------------------------------------------------------------------------------


def sanction_impose(
    *,
    actor: User,
    user_id: int,
    kind: str,
    reason: str,
    days: int | None = None,
    username: str | None = None,
    notice: str = "",
) -> Sanction:
    """Sanction user `user_id` with `kind`, because `reason` (kept for staff), telling them
    `notice` (by default the kind's own sentence, `DEFAULT_NOTICES`).

    A mute or rated bar lasts `days` (1-365); a rename gives the account `username`, or a
    neutral `player-<digits>` when none is given, checked as sign-up checks a username. Refused
    (`ModerationInvalid`, nothing changed): `bad_kind`, `days_required`, `bad_days`,
    `not_for_kind` (days or a username the kind does not take), `self`, `protected_account`
    (staff or a superuser, unless the actor is a superuser), `bad_username`, `already_inactive`,
    `reason_required`; `not_found` (`ModerationNotFound`) for no such user; `not_staff`
    (`ModerationPermissionDenied`) for an actor who is not active staff.
    """
    _actor_check(actor)
    reason = reason_clean(reason)
    try:
        kind = SanctionKind(kind)
    except ValueError:
        raise ModerationInvalid(
            "bad_kind", f"A sanction is one of: {', '.join(SanctionKind.values)}."
        ) from None
    if kind in TIMED_FIELDS:
        if days is None:
            raise ModerationInvalid("days_required", f"Say for how many days to {kind.label}.")
        if isinstance(days, bool) or not isinstance(days, int) or not DAYS_MIN <= days <= DAYS_MAX:
            raise ModerationInvalid(
                "bad_days", f"A {kind.label.lower()} lasts {DAYS_MIN} to {DAYS_MAX} days."
            )
    elif days is not None:
        raise ModerationInvalid("not_for_kind", f"{kind.label} takes no number of days.")
    if username and kind != SanctionKind.RENAME:
        raise ModerationInvalid("not_for_kind", "Only a rename takes a username.")
    notice = _notice_clean(notice)
    now = timezone.now()
    with transaction.atomic():
        user = _target_lock(actor=actor, user_id=user_id)
        sanction = Sanction(
            user=user,
            kind=kind,
            reason=reason,
            created_by=actor,
            until=now + timedelta(days=days) if days is not None else None,
        )
        if kind == SanctionKind.DEACTIVATE:
            if not user.is_active:
                raise ModerationInvalid(
                    "already_inactive", f"{user.username} is deactivated already."
                )
            users_deactivate(actor=actor, user_ids=[user.pk], reason=reason)
        if kind == SanctionKind.RENAME:
            sanction.old_username = user.username
            sanction.new_username = _rename(user, username)
        sanction.notice = notice or DEFAULT_NOTICES[kind].format(username=sanction.new_username)
        sanction.save()
        if kind in TIMED_FIELDS:
            _timed_refresh(user, kind, now=now)
        if kind in IMPOSED_ACTION:
            moderation_record(
                actor=actor,
                action=IMPOSED_ACTION[kind],
                reason=reason,
                user=user,
                description=_imposed_description(sanction, user),
            )
        _announce(sanction, notice=sanction.notice, lifted=False)
    return sanction


def sanction_lift(*, actor: User, sanction_id: int, reason: str) -> Sanction:
    """Undo sanction `sanction_id`, because `reason`, and tell the player: a mute or bar ends
    (the user's date becomes the latest of their other active ones of the kind, if any), a
    rename gives the old username back, a deactivated account is reactivated, a warning is
    withdrawn. Recorded in the moderation log.

    Refused (`ModerationInvalid`, nothing changed): `already_lifted`, `ended` (a mute or bar
    that is over already), `renamed_since` (the account has been renamed again),
    `username_taken` (the old username is someone else's now), `self`, `protected_account`,
    `reason_required`; `not_found` (`ModerationNotFound`) for no such sanction; `not_staff`.
    """
    _actor_check(actor)
    reason = reason_clean(reason)
    now = timezone.now()
    with transaction.atomic():
        found = Sanction.objects.filter(pk=sanction_id).values_list("user_id", flat=True).first()
        if found is None:
            raise ModerationNotFound("not_found", "No such sanction.")
        user = _target_lock(actor=actor, user_id=found)
        sanction = Sanction.objects.select_for_update().get(pk=sanction_id)
        kind = SanctionKind(sanction.kind)
        if sanction.lifted_at is not None:
            raise ModerationInvalid("already_lifted", "This sanction was lifted already.")
        if kind in TIMED_FIELDS and sanction.until <= now:
            raise ModerationInvalid("ended", "This sanction has ended already.")
        sanction.lifted_at, sanction.lifted_by, sanction.lift_reason = now, actor, reason
        sanction.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
        if kind in TIMED_FIELDS:
            _timed_refresh(user, kind, now=now)
        if kind == SanctionKind.RENAME:
            _rename_undo(user, sanction)
        # A reactivation is recorded by itself, as the deactivation was; an account staff
        # reactivated meanwhile (in the admin) has only the lift to record.
        reactivated = kind == SanctionKind.DEACTIVATE and users_reactivate(
            actor=actor, user_ids=[user.pk], reason=reason
        )
        if not reactivated:
            moderation_record(
                actor=actor,
                action=ModerationActionKind.SANCTION_LIFT,
                reason=reason,
                user=user,
                description=f"Lifted sanction #{sanction.pk} ({kind.label.lower()}) of "
                f"{user.username}.",
            )
        notice = LIFT_NOTICES[kind].format(username=sanction.old_username)
        _announce(sanction, notice=notice, lifted=True)
    return sanction


def sanction_acknowledge(*, user: User, sanction_id: int) -> Sanction:
    """`user` has read the notice of their warning or rename `sanction_id`: it is no longer
    shown to them. Another user's sanction, or one of another kind, is not found."""
    with transaction.atomic():
        sanction = (
            Sanction.objects.select_for_update()
            .filter(pk=sanction_id, user_id=user.pk, kind__in=list(ACKNOWLEDGED_KINDS))
            .first()
        )
        if sanction is None:
            raise ModerationNotFound("not_found", "No such notice of yours.")
        if sanction.acknowledged_at is None:
            sanction.acknowledged_at = timezone.now()
            sanction.save(update_fields=["acknowledged_at"])
    return sanction


# --- internals ---------------------------------------------------------------------------------


def _notice_clean(notice: str | None) -> str:
    notice = (notice or "").strip()
    if len(notice) > NOTICE_MAX_LENGTH:
        raise ModerationInvalid(
            "notice_too_long", f"A notice has at most {NOTICE_MAX_LENGTH} characters."
        )
    return notice


def _actor_check(actor: User) -> None:
    if not (actor.is_staff and actor.is_active):
        raise ModerationPermissionDenied("not_staff", "Only staff sanction players.")


def _target_lock(*, actor: User, user_id: int) -> User:
    """User `user_id`, locked, if `actor` may sanction them."""
    user = get_user_model().objects.select_for_update().filter(pk=user_id).first()
    if user is None:
        raise ModerationNotFound("not_found", "No such user.")
    if user.pk == actor.pk:
        raise ModerationInvalid("self", "You cannot sanction yourself. Nothing was changed.")
    if (user.is_staff or user.is_superuser) and not actor.is_superuser:
        raise ModerationInvalid(
            "protected_account", "Only a superuser may sanction staff. Nothing was changed."
        )
    return user


def _timed_refresh(user: User, kind: SanctionKind, *, now: datetime) -> None:
    """Set the user's date of the timed `kind` to the latest end of its active sanctions."""
    field = TIMED_FIELDS[kind]
    latest = Sanction.objects.filter(
        user_id=user.pk, kind=kind, lifted_at__isnull=True, until__gt=now
    ).aggregate(latest=Max("until"))["latest"]
    setattr(user, field, latest)
    user.save(update_fields=[field])


def _username_check(username: str) -> str:
    """`username` as sign-up would accept it (taken, look-alike, reserved, shape), or
    `bad_username`."""
    try:
        return get_adapter().clean_username(username)
    except ValidationError as error:
        raise ModerationInvalid("bad_username", " ".join(error.messages)) from None


def _rename(user: User, username: str | None) -> str:
    """Give `user` `username` (or a free neutral one); the new username."""
    if username:
        new = _username_check(username.strip())
    else:
        for _ in range(RENAME_ATTEMPTS):
            candidate = f"{RENAME_PREFIX}{secrets.randbelow(10**6):06d}"
            try:
                new = _username_check(candidate)
                break
            except ModerationInvalid:
                continue
        else:  # pragma: no cover - a million names taken
            raise ModerationInvalid("bad_username", "No neutral username is free: give one.")
    user.username = new
    try:
        with transaction.atomic():
            user.save(update_fields=["username"])
    except IntegrityError:  # taken meanwhile by a sign-up
        raise ModerationInvalid("bad_username", f"{new} was just taken.") from None
    return user.username


def _rename_undo(user: User, sanction: Sanction) -> None:
    """Give `user` back the username `sanction` replaced, if nobody has it (or a look-alike)."""
    if user.username != sanction.new_username:
        raise ModerationInvalid(
            "renamed_since",
            f"{sanction.old_username} has been renamed since (now {user.username}): lift that "
            "rename first.",
        )
    old = sanction.old_username
    model = get_user_model()
    taken = model.objects.filter(username__iexact=old).exclude(pk=user.pk).exists()
    if taken or lookalike_exists(old, exclude_pk=user.pk):
        raise ModerationInvalid(
            "username_taken", f"{old} (or one that looks like it) is someone else's now."
        )
    user.username = old
    try:
        with transaction.atomic():
            user.save(update_fields=["username"])
    except IntegrityError:
        raise ModerationInvalid("username_taken", f"{old} was just taken.") from None


def _imposed_description(sanction: Sanction, user: User) -> str:
    kind = SanctionKind(sanction.kind)
    if kind == SanctionKind.RENAME:
        return f"Renamed {sanction.old_username} to {sanction.new_username}."
    if kind in TIMED_FIELDS:
        return f"{kind.label} for {user.username} until {sanction.until:%Y-%m-%d %H:%M} UTC."
    return f"Warned {user.username}."


def _announce(sanction: Sanction, *, notice: str, lifted: bool) -> None:
    """Tell the player, in this transaction (the inbox queues its notification with it)."""
    signals.moderation_notice.send(
        sender=Sanction,
        user_id=sanction.user_id,
        event="moderation_notice",
        data={
            "sanction": sanction.pk,
            "sanction_kind": sanction.kind,
            "lifted": lifted,
            "notice": notice,
            "until": None if lifted or sanction.until is None else sanction.until.isoformat(),
        },
    )
