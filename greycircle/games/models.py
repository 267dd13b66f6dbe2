"""One table set for every game kind: Game, Seat, Move."""

from __future__ import annotations

import functools
import secrets
from typing import Any

from django.conf import settings
from django.db import connections, models, router
from django.db.models import Q
from django.db.transaction import TransactionManagementError

from greycircle.runtime.db_rows import ModelColumns, execute_prepared


def new_link_key() -> str:
    """The secret part of an unlisted game's link (`?key=`): 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def new_seed() -> int:
    """A secret 63-bit seed: it fixes the deal, so it never leaves the server."""
    return secrets.randbits(63)


class GameStatus(models.TextChoices):
    OPEN = "open", "Waiting for players"
    ACTIVE = "active", "In play"
    FINISHED = "finished", "Finished"
    ABORTED = "aborted", "Aborted"
    # Withdrawn by its creator before it started: nobody played, so nobody won or lost.
    CANCELLED = "cancelled", "Withdrawn"


# A game in these states is over: no more moves, joins or withdrawals.
GAME_OVER = (GameStatus.FINISHED, GameStatus.ABORTED, GameStatus.CANCELLED)


class DaysPerMove(models.IntegerChoices):
    """The time a player of a game between people has for each move (greycircle.games.deadlines)."""

    ONE = 1, "1 day"
    THREE = 3, "3 days"
    SEVEN = 7, "7 days"


class GameSpeed(models.TextChoices):
    """How a game is timed: days per move, or a live clock per seat (greycircle.games.clocks)."""

    CORRESPONDENCE = "correspondence", "Correspondence"
    LIVE = "live", "Live"


class DeadlineNotice(models.TextChoices):
    """What has been done about the current `Game.move_deadline` (each new deadline resets it)."""

    NONE = "", "Nothing yet"
    REMINDED = "reminded", "Player reminded"
    EXPIRED = "expired", "Time up handled"


class GameQuerySet(models.QuerySet["Game"]):
    def with_seats(self) -> GameQuerySet:
        """Seats and their users in one extra query; `game.seats.all()` then costs nothing."""
        return self.prefetch_related(
            models.Prefetch("seats", queryset=Seat.objects.select_related("user"))
        )

    def locked_with_seats(self, pk: int) -> Game | None:
        """The game `pk`, its row locked for this transaction (`SELECT ... FOR UPDATE`), with its
        seats and their users attached as `with_seats` attaches them: all in one query, the
        seats joined to their game (every game has a seat: its creator's)."""
        return self._seated(pk, locked=True)

    def get_with_seats(self, pk: int) -> Game | None:
        """The game `pk` with its seats and their users attached, in one query; None if none."""
        return self._seated(pk, locked=False)

    def _seated(self, pk: int, *, locked: bool) -> Game | None:
        # Every move and every poll runs this, so its SQL is written out rather than compiled
        # for each call (greycircle.runtime.db_rows); the game's columns are read from the first
        # row.
        database = self._db or (
            router.db_for_write(self.model) if locked else router.db_for_read(self.model)
        )
        connection = connections[database]
        sql, locks = _seated_sql(database, locked)
        if locks and connection.get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        with connection.cursor() as cursor:
            # Prepared once per database session on PostgreSQL: planning this join each time
            # was the biggest part of the database's CPU for a move.
            execute_prepared(connection, cursor, sql, [pk])
            rows = cursor.fetchall()
        if not rows:
            return None
        seat_columns, game_columns, user_columns = _seat_game_user_columns()
        game = game_columns.build(rows[0], start=seat_columns.width, connection=connection)
        user_start = seat_columns.width + game_columns.width
        seats = []
        for row in rows:
            seat_row = seat_columns.build(row, start=0, connection=connection)
            seat_row.game = game
            if seat_row.user_id is not None:
                seat_row.user = user_columns.build(row, start=user_start, connection=connection)
            seats.append(seat_row)
        # What `prefetch_related` leaves on the game: a queryset holding the seats already. Its
        # filter is compiled only if someone chains onto it (`game.seats.filter(...)`), as a
        # related manager defers its own.
        attached = Seat.objects.all()
        attached._defer_next_filter = True
        attached = attached.filter(game=game)
        attached._result_cache = seats
        attached._prefetch_done = True
        game._prefetched_objects_cache = {"seats": attached}
        return game


@functools.cache
def _seat_game_user_columns() -> tuple[ModelColumns[Seat], ModelColumns[Game], ModelColumns]:
    from django.contrib.auth import get_user_model

    return ModelColumns(Seat), ModelColumns(Game), ModelColumns(get_user_model())


@functools.cache
def _seated_sql(database: str, locked: bool) -> tuple[str, bool]:
    """The SQL of `_seated` on `database`, and whether it locks (never on SQLite)."""
    connection = connections[database]
    quote = connection.ops.quote_name
    columns = _seat_game_user_columns()
    seat, game, user = (quote(c.alias) for c in columns)
    if not locked:
        locking = ""
    elif connection.features.has_select_for_update_of:
        locking = " " + connection.ops.for_update_sql(of=(game,))
    elif connection.features.has_select_for_update:
        locking = " " + connection.ops.for_update_sql()
    else:
        locking = ""
    select = ", ".join(c.select(connection) for c in columns)
    sql = (
        f"SELECT {select} FROM {seat} "
        f"INNER JOIN {game} ON {seat}.{quote('game_id')} = {game}.{quote('id')} "
        f"LEFT OUTER JOIN {user} ON {seat}.{quote('user_id')} = {user}.{quote('id')} "
        f"WHERE {seat}.{quote('game_id')} = %s ORDER BY {seat}.{quote('index')}{locking}"
    )
    return sql, bool(locking)


class Game(models.Model):
    # No index of its own: three kinds make it worth nothing to a query (one filtering by kind
    # scans the table or starts from another index: (status, kind) for the open and live
    # lists, the seats for a player's games), and every move of a live game rewrote its two
    # entries (the plain one and the `LIKE` one Django adds on PostgreSQL): its clocks' columns
    # are indexed, so the row's update is never HOT and writes every index (migration 0011).
    kind = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=GameStatus.choices, default=GameStatus.OPEN)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(default=new_seed, editable=False)
    state = models.JSONField(default=dict)
    version = models.PositiveIntegerField(default=0)
    move_count = models.PositiveIntegerField(default=0)
    # Denormalised from the state so "whose turn is it" lists are a plain query.
    to_move = models.PositiveSmallIntegerField(null=True, blank=True)
    outcome = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # Seen only by its players and by whoever has its link: never in a list (open, live, ...).
    # Its link carries `link_key` (`/games/<id>/?key=...`): ids are small sequential numbers, so
    # an id alone must not open it (greycircle.games.selectors.game_visible_to). Empty for a
    # listed game.
    unlisted = models.BooleanField(default=False)
    link_key = models.CharField(max_length=32, blank=True, default="", editable=False)
    rematch_of = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematch"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Time per move of a game between people; `move_deadline` is when the seat to move runs out
    # of it: set only while the game is in play, a person is to move and at least two people
    # play (greycircle.games.deadlines). `deadline_notice` is what was done about it so far.
    days_per_move = models.PositiveSmallIntegerField(
        choices=DaysPerMove.choices, default=DaysPerMove.THREE
    )
    move_deadline = models.DateTimeField(null=True, blank=True)
    deadline_notice = models.CharField(
        max_length=16, choices=DeadlineNotice.choices, default=DeadlineNotice.NONE, blank=True
    )
    # A casual game moves nobody's rating.
    rated = models.BooleanField(default=True)
    # A live game's clocks (greycircle.games.clocks); `clock_initial_ms` is None for a game of
    # days per move. `clock_remaining_ms` and `clock_moved` hold one entry per seat: its time as
    # of `clock_started_at` (for the seat to move, the start of its running stretch) and whether
    # it is past its first turn. `flag_at` is when the running seat's time is up (None when no
    # clock runs): the clocks' loop finds due games by it (greycircle.games.flags).
    clock_initial_ms = models.PositiveIntegerField(null=True, blank=True)
    clock_increment_ms = models.PositiveIntegerField(default=0)
    clock_remaining_ms = models.JSONField(default=list, blank=True)
    clock_moved = models.JSONField(default=list, blank=True)
    clock_started_at = models.DateTimeField(null=True, blank=True)
    flag_at = models.DateTimeField(null=True, blank=True)
    # A takeback asked for in a casual game (greycircle.games.takebacks): {"seat", "move_count",
    # "moves"}, the asker's seat, the game's move count when they asked and how many moves it
    # undoes. Pending only while the game is in play at that move count: any move cancels it.
    # `takeback_asked` is the move count at which each seat ({"<seat>": count}) last asked: one
    # request per seat and move number, however it was answered.
    takeback_offer = models.JSONField(null=True, blank=True)
    takeback_asked = models.JSONField(default=dict, blank=True)

    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        indexes = [
            models.Index(fields=["status", "kind"]),
            models.Index(fields=["status", "move_deadline"], name="game_status_deadline"),
            models.Index(
                fields=["flag_at"], name="game_flag_at", condition=Q(flag_at__isnull=False)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.unlisted and not self.link_key:
            self.link_key = new_link_key()
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "link_key"}
        super().save(*args, **kwargs)

    @property
    def speed(self) -> str:
        return GameSpeed.CORRESPONDENCE if self.clock_initial_ms is None else GameSpeed.LIVE


class Seat(models.Model):
    """A place at the table: held by a user, by a computer player at `ai_level`, or open.

    A seat whose player ran out of time, in a kind where a computer then takes over, keeps its
    `user` (who still sees the game from it) and gets an `ai_level` and `taken_over_at`: from then
    on the computer plays it.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
    )
    ai_level = models.CharField(max_length=16, blank=True)
    joined_at = models.DateTimeField(null=True, blank=True)
    taken_over_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["game", "user"], condition=Q(user__isnull=False), name="seat_one_per_user"
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=True) | Q(ai_level="") | Q(taken_over_at__isnull=False),
                name="seat_user_or_ai",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index} of game {self.game_id}: {self.name}"

    @property
    def is_open(self) -> bool:
        return self.user_id is None and not self.ai_level

    @property
    def is_computer(self) -> bool:
        """A computer plays this seat (from the start, or since it took over)."""
        return bool(self.ai_level)

    @property
    def is_person(self) -> bool:
        """A person plays this seat (invited or seated; not taken over by a computer)."""
        return self.user_id is not None and not self.ai_level

    @property
    def is_taken_over(self) -> bool:
        return self.user_id is not None and bool(self.ai_level)

    @property
    def name(self) -> str:
        if self.user_id is not None:
            # display_name: "deleted player" once the account is deleted
            # (greycircle.players.deletion)
            name = self.user.display_name
            return f"{name} (computer)" if self.ai_level else name
        if self.ai_level:
            return f"Computer ({self.ai_level})"
        return "Open seat"


class Move(models.Model):
    """One accepted move. `data` replays it; `public`/`private` are how the log shows it.

    `player` is the user who made the move; None for a computer's move and for a move imported
    from a record, which nobody made on this site (`imported`).
    """

    # Its lookups by game (the log, a game's deletion) use the unique (game, number) index: an
    # index of the game alone would be one more entry written by every move (migration 0011).
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    number = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    data = models.JSONField()
    public = models.JSONField(default=dict)
    # {"<seat>": {...}}: detail only that seat may see, laid over `public` for it.
    private = models.JSONField(default=dict, blank=True)
    idempotency_key = models.CharField(max_length=128, blank=True)
    imported = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="move_unique_number"),
            models.UniqueConstraint(
                fields=["game", "player", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="move_unique_idempotency_key",
            ),
        ]

    def __str__(self) -> str:
        return f"move {self.number} of game {self.game_id}"


class WorkerHeartbeat(models.Model):
    """A task worker process that is alive: it sets `beat_at` (database time) every
    GAMES_WORKER_HEARTBEAT_SECONDS. A task running on a worker whose beat is older than
    GAMES_WORKER_DEAD_SECONDS is failed and, if safe, queued again (greycircle.games.heartbeats).
    """

    worker_id = models.CharField(max_length=64, primary_key=True)
    hostname = models.CharField(max_length=255, blank=True)
    pid = models.PositiveIntegerField(null=True, blank=True)
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-beat_at"]

    def __str__(self) -> str:
        return f"worker {self.worker_id} ({self.hostname}:{self.pid})"


class InvitationStatus(models.TextChoices):
    PENDING = "pending", "Waiting for an answer"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"
    CANCELLED = "cancelled", "Withdrawn"
    EXPIRED = "expired", "Expired"


class OnDecline(models.TextChoices):
    """What a declined or expired invitation does to its game, as the creator chose."""

    CANCEL = "cancel", "Cancel the game"
    OPEN_SEAT = "open_seat", "Open the seat to anyone"


class Invitation(models.Model):
    """A seat of a game offered to `invitee` by `inviter`; the game starts only when every
    invitation to it has been accepted.

    While pending the invitee already holds the seat (`Seat.user`, with no `joined_at`), so
    nobody else can take it; a declined or expired invitation frees the seat or cancels the game
    (`on_decline`).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    seat = models.PositiveSmallIntegerField()
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="game_invitations"
    )
    inviter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="game_invitations_sent",
    )
    status = models.CharField(
        max_length=16, choices=InvitationStatus.choices, default=InvitationStatus.PENDING
    )
    on_decline = models.CharField(
        max_length=16, choices=OnDecline.choices, default=OnDecline.CANCEL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "seat"],
                condition=Q(status="pending"),
                name="invitation_one_pending_per_seat",
            ),
        ]
        indexes = [models.Index(fields=["invitee", "status"])]

    def __str__(self) -> str:
        return f"invitation to seat {self.seat} of game {self.game_id} ({self.status})"
