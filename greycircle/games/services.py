"""Every state change of a game. Each service is one transaction; events go out after commit.

Concurrency: a service that changes a game locks its row first (`select_for_update`), so all
commands on one game are serialised, whichever server process receives them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.selectors import are_friends, blocked_user_ids, is_blocked_among
from greycircle.games import flags, registry, selectors, thinking
from greycircle.games.changes import (
    ai_turn_pending,
    check_can_act,
    deadline_reset,
    game_commit,
    game_finish,
    game_lock,
    game_start,
    game_start_if_ready,
    game_withdraw,
    invitations_close,
    move_apply,
    seat_of,
)
from greycircle.games.clocks import TimeControl
from greycircle.games.engine import IllegalMove, Outcome, RecordNotation
from greycircle.games.errors import (
    GameInvalid,
    GameNotFound,
    GamePermissionDenied,
)
from greycircle.games.models import (
    GAME_OVER,
    DaysPerMove,
    Game,
    GameStatus,
    Invitation,
    InvitationStatus,
    Move,
    OnDecline,
    Seat,
)
from greycircle.games.rated_bar import rated_bar_check
from greycircle.games.results import ABORT_STAFF

if TYPE_CHECKING:
    from accounts.models import User


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who sits at a seat of a new game: a user, a computer player, or nobody yet (open)."""

    user: User | None = None
    ai_level: str = ""

    @property
    def is_open(self) -> bool:
        return self.user is None and not self.ai_level


def game_create(
    *,
    creator: User,
    kind: str,
    opponents: Sequence[SeatSpec],
    options: Mapping[str, Any] | None = None,
    record: str = "",
    unlisted: bool = False,
    on_decline: str = OnDecline.CANCEL,
    days_per_move: int = DaysPerMove.THREE,
    time_control: TimeControl | None = None,
    rated: bool = True,
) -> Game:
    """A new game with `creator` at seat 0 and `opponents` at seats 1.. in order.

    Each user seated by `creator` is invited (`Invitation`): they hold the seat, but the game
    starts only when every invitation has been accepted and no seat is open. Only friends of
    `creator`, or users who accept invitations from anyone, can be invited; a declined or expired
    invitation opens the seat or cancels the game (`on_decline`). Nobody is seated with someone
    on the other side of a block with them. A game against computers starts at once; one with
    open seats waits for players to join. An `unlisted` game is in no list (open tables, live
    games): only its players and whoever has its link (with its `link_key`) find it. With a
    `record` (for kinds that have a record notation; every other seat a computer), its moves
    are replayed into the new game as imported moves, and the game goes on from there. Between
    people, each has `days_per_move` (1, 3 or 7) for each move (greycircle.games.deadlines),
    unless the game is live: with a `time_control`, each seat has a clock instead
    (greycircle.games.clocks). A game that is not `rated` (casual) moves nobody's rating.
    """
    try:
        game_kind = registry.get(kind)
    except registry.UnknownKind:
        raise GameInvalid("unknown_kind", f"There is no game called {kind!r}.") from None
    rules = game_kind.rules
    seat_count = 1 + len(opponents)
    if not rules.min_seats <= seat_count <= rules.max_seats:
        raise GameInvalid(
            "bad_seats",
            f"{game_kind.title} is played by {rules.min_seats}"
            + (f" to {rules.max_seats}" if rules.max_seats != rules.min_seats else "")
            + f" players, not {seat_count}.",
        )
    seen_users = {creator.pk}
    for spec in opponents:
        if spec.ai_level and spec.ai_level not in game_kind.ai_levels:
            raise GameInvalid(
                "bad_ai_level",
                f"Computer players of {game_kind.title} are {', '.join(game_kind.ai_levels)}.",
            )
        if spec.user is not None:
            if spec.user.pk in seen_users:
                raise GameInvalid("bad_seats", "Each player can take only one seat in a game.")
            seen_users.add(spec.user.pk)
    if on_decline not in OnDecline.values:
        raise GameInvalid("bad_on_decline", f"on_decline is one of: {', '.join(OnDecline.values)}.")
    if days_per_move not in DaysPerMove.values:
        raise GameInvalid(
            "bad_days_per_move",
            f"The time per move is {', '.join(map(str, DaysPerMove.values))} days.",
        )
    _seats_check_blocks(creator=creator, seats=opponents)
    if rated and any(not spec.ai_level for spec in opponents):  # computers never rate
        rated_bar_check(user=creator)
    try:
        normalised_options = rules.validate_options(options or {})
    except IllegalMove as error:
        raise GameInvalid("bad_options", error.message) from None
    if record and time_control is not None:
        raise GameInvalid(
            "bad_time_control", "A game imported from a record is played by days per move."
        )
    recorded_moves = _record_parse(rules, record, opponents) if record else []
    _seats_check_invitable(creator=creator, seats=opponents)

    with transaction.atomic():
        game = _game_seat(
            Game(
                kind=kind,
                options=normalised_options,
                created_by=creator,
                unlisted=unlisted,
                days_per_move=days_per_move,
                rated=rated,
                clock_initial_ms=time_control.initial_ms if time_control else None,
                clock_increment_ms=time_control.increment_ms if time_control else 0,
            ),
            seats=[SeatSpec(user=creator), *opponents],
            inviter=creator,
            on_decline=on_decline,
        )
        ended = _record_replay(game, recorded_moves)
        game_commit(game, created=True, ended=ended)
    return game


def game_join(*, game_id: int, user: User, key: str = "") -> Game:
    """Seat `user` at the first open seat; the game starts when the last seat is taken.

    Only a game `user` may see (`selectors.game_visible_to`: an unlisted one with its link `key`,
    none with anyone seated across a block from `user`); any other is not found.
    """
    with transaction.atomic():
        game = game_lock(game_id)
        if not selectors.game_visible_to(game=game, viewer=user, key=key):
            raise GameNotFound("not_found", "No such game.")
        seats = list(game.seats.all())
        if game.status != GameStatus.OPEN:
            raise GameInvalid("not_open", "This game is not waiting for players.")
        if any(seat.user_id == user.pk for seat in seats):
            raise GameInvalid("already_seated", "You already have a seat in this game.")
        if game.rated:
            rated_bar_check(user=user)
        open_seats = [seat for seat in seats if seat.is_open]
        if not open_seats:
            raise GameInvalid("not_open", "Every seat of this game is taken or promised.")
        seat = open_seats[0]
        seat.user = user
        seat.joined_at = timezone.now()
        seat.save(update_fields=["user", "joined_at"])
        game_start_if_ready(game)
        game.version += 1
        game.save()
        game_commit(game, joined=seat)
    return game


def move_submit(
    *,
    game_id: int,
    user: User,
    move: Mapping[str, Any],
    expected_version: int,
    idempotency_key: str = "",
    arrived_at: datetime | None = None,
) -> Game:
    """Play `move` for `user`'s seat. Checks seat, version, status and turn, then the rules.

    A request repeated with the same `idempotency_key` returns the game without playing twice.
    In a live game the move is timed by `arrived_at`, when it came in (now if not given): one
    that arrives after the player's time is up is not played but ends the game on time
    (`time_up`; greycircle.games.flags).
    """
    arrived_at = arrived_at or timezone.now()
    try:
        return _move_submit(
            game_id=game_id,
            user=user,
            move=move,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
            arrived_at=arrived_at,
        )
    except IntegrityError:
        # A key used before, sent with the game's current version (so not a repeat of that
        # move, which was sent at an older one): the move log's unique key refused it, and the
        # transaction changed nothing. Answered as any repeat is.
        if idempotency_key and _key_used(game_id=game_id, user=user, key=idempotency_key):
            game = Game.objects.get_with_seats(game_id)
            if game is not None:
                return game
        raise


def _key_used(*, game_id: int, user: User, key: str) -> bool:
    return Move.objects.filter(game_id=game_id, player=user, idempotency_key=key).exists()


def _move_submit(
    *,
    game_id: int,
    user: User,
    move: Mapping[str, Any],
    expected_version: int,
    idempotency_key: str,
    arrived_at: datetime,
) -> Game:
    with transaction.atomic():
        game = game_lock(game_id)
        # A repeat of a move that was played comes with the version it was played at, which
        # that move changed: at the current version there is nothing to look up (one query
        # fewer for every move; a key used before is refused by the log's unique constraint).
        if (
            idempotency_key
            and expected_version != game.version
            and _key_used(game_id=game_id, user=user, key=idempotency_key)
        ):
            return game
        seat = seat_of(game, user)
        flagged = game.to_move == seat.index and flags.flag_is_due(game, now=arrived_at)
        if flagged:
            flags.flag_fall(game, now=timezone.now())
        elif flags.lost_on_time(game, seat=seat.index):
            # The clocks' loop took the lock first and ended the game: the same answer.
            raise GameInvalid("time_up", "Your time ran out before your move arrived.")
        else:
            check_can_act(game, seat=seat, expected_version=expected_version)
            rules = registry.get(game.kind).rules
            try:
                parsed = rules.parse_move(move)
            except IllegalMove as error:
                raise GameInvalid(error.code, error.message) from None
            entry = move_apply(
                game,
                seat=seat,
                move=parsed,
                player=user,
                idempotency_key=idempotency_key,
                arrived_at=arrived_at,
            )
            game_commit(game, moves=[entry])
    if flagged:
        # Raised once the game's end is committed: the flag fell, the move was never played.
        raise GameInvalid("time_up", "Your time ran out before your move arrived.")
    return game


def ai_take_turn(*, game_id: int, expected_version: int) -> bool:
    """Let the computer seat to move play, if the game is still where the task left it.

    Safe to call any number of times: a stale or finished game is left alone. The move is chosen
    before the row is locked, so thinking never holds up other requests on this game.
    """
    game = Game.objects.get_with_seats(game_id)
    if game is None or not ai_turn_pending(game, expected_version=expected_version):
        return False
    game_kind = registry.get(game.kind)
    seat = game.seats.all()[game.to_move]
    state = game_kind.rules.decode(game.state)
    ai_seed = random.Random(f"{game.seed}:{game.version}").getrandbits(63)
    # `updated_at`: when the move that made this the computer's turn was saved.
    waited_ms = (timezone.now() - game.updated_at).total_seconds() * 1000
    budget_ms = thinking.ai_budget_ms(waited_ms=waited_ms, game=game)
    chosen = game_kind.computer(state, level=seat.ai_level, seed=ai_seed, budget_ms=budget_ms)
    with transaction.atomic():
        game = game_lock(game_id)
        if not ai_turn_pending(game, expected_version=expected_version):
            return False
        if flags.flag_is_due(game, now=timezone.now()):  # a computer's clock is a clock too
            flags.flag_fall(game, now=timezone.now())
            return True
        move = move_apply(game, seat=seat, move=chosen, player=None, state=state)
        game_commit(game, moves=[move])
    return True


def game_resign(*, game_id: int, user: User) -> Game:
    """`user` gives up: the game ends and every other seat wins."""
    with transaction.atomic():
        game = game_lock(game_id)
        seat = seat_of(game, user)
        if game.status != GameStatus.ACTIVE:
            raise GameInvalid("game_not_active", "Only a game in play can be resigned.")
        seat_count = len(game.seats.all())
        outcome = Outcome(
            scores=[0] * seat_count,
            winners=[index for index in range(seat_count) if index != seat.index],
            reason="resignation",
        )
        game_finish(game, outcome)
        game.version += 1
        game.save()
        game_commit(game, ended=True)
    return game


def game_rematch(*, game_id: int, user: User) -> Game:
    """A new game with the same players and options, seats turned by one so another starts.

    The other people of the finished game are invited, as for a new game, and it starts when they
    accept; against computers it starts at once. The rules of a new game's invitations hold (no
    guest invites or is invited, nobody whose account is closed, nobody across a block), except
    that having played together stands in for friendship. Asking twice (or by two players) gives
    the same rematch.
    """
    with transaction.atomic():
        game = game_lock(game_id)
        seat_of(game, user)
        if game.status not in (GameStatus.FINISHED, GameStatus.ABORTED):
            raise GameInvalid("game_not_over", "A rematch can start only when the game is over.")
        existing = Game.objects.filter(rematch_of=game).first()
        if existing is not None:
            return existing
        if game.rated and any(seat.user_id not in (None, user.pk) for seat in game.seats.all()):
            rated_bar_check(user=user)
        # A player whose seat a computer took over is invited again, as a person.
        seats = [
            SeatSpec(user=seat.user) if seat.user_id else SeatSpec(ai_level=seat.ai_level)
            for seat in game.seats.all()
        ]
        _seats_check_blocks(creator=user, seats=seats)
        _seats_check_invitable(creator=user, seats=seats, played_together=True)
        rematch = _game_seat(
            Game(
                kind=game.kind,
                options=game.options,
                created_by=user,
                rematch_of=game,
                unlisted=game.unlisted,
                # Whoever had the link to the game may follow its rematch.
                link_key=game.link_key,
                days_per_move=game.days_per_move,
                rated=game.rated,
                clock_initial_ms=game.clock_initial_ms,
                clock_increment_ms=game.clock_increment_ms,
            ),
            seats=seats[1:] + seats[:1],
            inviter=user,
        )
        game.version += 1
        game.save(update_fields=["version", "updated_at"])
        game_commit(game)
        game_commit(rematch, created=True)
    return rematch


def game_cancel(*, game_id: int, user: User) -> Game:
    """The creator withdraws a game that has not started yet.

    It becomes `cancelled`: over, with no outcome, so it counts as nobody's win or loss. Anybody
    who had already taken a seat is told.
    """
    with transaction.atomic():
        game = game_lock(game_id)
        if game.created_by_id != user.pk:
            raise GamePermissionDenied(
                "not_the_creator", "Only the player who started this game can withdraw it."
            )
        if game.status != GameStatus.OPEN:
            raise GameInvalid("not_open", "Only a game still waiting for players can be withdrawn.")
        game_withdraw(game)
        game.version += 1
        game.save()
        game_commit(game, cancelled=True)
    return game


def game_abort(*, game_id: int) -> Game:
    """Staff stop a game that cannot go on; nobody wins (its outcome says why, no winners)."""
    with transaction.atomic():
        game = game_lock(game_id)
        if game.status in GAME_OVER:
            raise GameInvalid("game_over", "This game is already over.")
        invitations_close(game, status=InvitationStatus.CANCELLED)
        game.status = GameStatus.ABORTED
        game.outcome = {"reason": ABORT_STAFF}
        game.to_move = None
        game.finished_at = timezone.now()
        deadline_reset(game)
        game.version += 1
        game.save()
        game_commit(game, ended=True)
    return game


def game_pair(
    *,
    players: Sequence[User],
    kind: str,
    time_control: TimeControl | None,
    days_per_move: int = DaysPerMove.THREE,
    rated: bool = True,
    rng: random.Random | None = None,
) -> Game:
    """A game between `players`, whom the lobby paired (greycircle.lobby): every seat taken at
    once, in an order shuffled by `rng`, and the game started, with no invitation to wait for.

    Refused as `game_create` refuses seating them: a closed account, a block between any two,
    a guest in a rated game. Joins the caller's transaction if it has one (the lobby marks the
    seeks matched in the same one)."""
    game_kind = registry.get(kind)
    seat_count = len(players)
    if not game_kind.rules.min_seats <= seat_count <= game_kind.rules.max_seats:
        raise GameInvalid("bad_seats", f"{game_kind.title} is not played by {seat_count}.")
    if len({player.pk for player in players}) != seat_count:
        raise GameInvalid("bad_seats", "Each player can take only one seat in a game.")
    if any(not player.is_active for player in players):
        raise GameInvalid("bad_seats", "A closed account cannot be seated.")
    if rated and any(player.is_guest for player in players):
        raise GameInvalid("bad_seats", "Guests play casual games only.")
    if is_blocked_among(users=players):
        raise GameInvalid("bad_seats", "These players cannot be seated together.")
    order = list(players)
    (rng or random.SystemRandom()).shuffle(order)
    with transaction.atomic():
        game = Game(
            kind=kind,
            options=game_kind.rules.validate_options({}),
            created_by=order[0],
            days_per_move=days_per_move,
            rated=rated,
            clock_initial_ms=time_control.initial_ms if time_control else None,
            clock_increment_ms=time_control.increment_ms if time_control else 0,
        )
        game.save()
        now = timezone.now()
        Seat.objects.bulk_create(
            Seat(game=game, index=index, user=player, joined_at=now)
            for index, player in enumerate(order)
        )
        game = Game.objects.with_seats().get(pk=game.pk)
        game_start(game, seat_count=seat_count)
        game.save()
        game_commit(game, created=True)
    return game


# --- internals ------------------------------------------------------------------------------


def _record_parse(rules: Any, record: str, opponents: Sequence[SeatSpec]) -> list[Any]:
    if not isinstance(rules, RecordNotation):
        raise GameInvalid("no_record_notation", "This game has no record notation to import.")
    # An import plays moves for every seat; only the importer and computers may be seated, so
    # nobody else is ever made to play (or lose) a game they took no part in.
    if not all(spec.ai_level for spec in opponents):
        raise GameInvalid(
            "bad_seats", "A game imported from a record can be played only against computers."
        )
    try:
        return rules.parse_record(record)
    except IllegalMove as error:
        raise GameInvalid("bad_record", error.message) from None


def _record_replay(game: Game, moves: Sequence[Any]) -> bool:
    """Play a record's moves into a new game, each by the seat to move; True if it ended.

    The moves are logged as imported, with no player: nobody made them on this site.
    """
    seats = game.seats.all()
    for number, move in enumerate(moves, start=1):
        if game.to_move is None:
            raise GameInvalid("bad_record", f"The game is over before move {number} of the record.")
        seat = seats[game.to_move]
        try:
            move_apply(game, seat=seat, move=move, player=None, imported=True)
        except GameInvalid as error:
            raise GameInvalid(
                "bad_record", f"Move {number} of the record: {error.detail}"
            ) from None
    return game.status == GameStatus.FINISHED


def _seats_check_blocks(*, creator: User, seats: Sequence[SeatSpec]) -> None:
    """Nobody is seated in a new game with someone on the other side of a block with them:
    neither with its creator nor with another player it seats.

    Worded as for an inactive user, so the refusal does not tell who blocked whom.
    """
    others = [spec.user for spec in seats if spec.user is not None and spec.user.pk != creator.pk]
    if not others:
        return
    blocked = blocked_user_ids(user=creator)
    for other in others:
        if other.pk in blocked:
            raise GameInvalid("bad_seats", f"{other.username} cannot be invited.")
    if is_blocked_among(users=others):
        raise GameInvalid("bad_seats", "These players cannot be seated together.")


def _seats_check_invitable(
    *, creator: User, seats: Sequence[SeatSpec], played_together: bool = False
) -> None:
    """Only friends of `creator`, or users who accept invitations from anyone, can be invited
    (or, for a rematch, people who `played_together` with `creator`); guests (accounts.guests)
    neither invite nor are invited, nor is anyone whose account is closed (deactivated or
    deleted)."""
    for spec in seats:
        other = spec.user
        if other is None or other.pk == creator.pk:
            continue
        if not other.is_active:
            raise GameInvalid("bad_seats", f"{other.display_name} cannot be invited.")
        if creator.is_guest:
            raise GameInvalid("bad_seats", "Create an account to invite players.")
        if other.is_guest:
            raise GameInvalid("bad_seats", f"{other.username} plays as a guest: not invitable.")
        if played_together or other.accept_invitations_from_anyone:
            continue
        if not are_friends(user=creator, other=other):
            raise GameInvalid(
                "bad_seats", f"{other.username} only accepts invitations from friends."
            )


def invitation_days() -> float:
    return float(settings.GAMES_INVITATION_DAYS)


def _game_seat(
    game: Game,
    *,
    seats: Sequence[SeatSpec],
    inviter: User,
    on_decline: str = OnDecline.CANCEL,
) -> Game:
    """Save the new `game` with `seats` in order; it starts at once if nobody is left to wait for.

    Every user seated other than `inviter` is invited: they hold the seat, and the game waits for
    their answer. Returns the game again from the database with its seats attached.
    """
    game.save()
    now = timezone.now()
    invited = [
        index
        for index, spec in enumerate(seats)
        if spec.user is not None and spec.user.pk != inviter.pk
    ]
    Seat.objects.bulk_create(
        Seat(
            game=game,
            index=index,
            user=spec.user,
            ai_level=spec.ai_level,
            joined_at=None if spec.is_open or index in invited else now,
        )
        for index, spec in enumerate(seats)
    )
    expires_at = now + timedelta(days=invitation_days())
    Invitation.objects.bulk_create(
        Invitation(
            game=game,
            seat=index,
            invitee=seats[index].user,
            inviter=inviter,
            on_decline=on_decline,
            expires_at=expires_at,
        )
        for index in invited
    )
    if not invited and not any(spec.is_open for spec in seats):
        game_start(game, seat_count=len(seats))
        game.save()
    return Game.objects.with_seats().get(pk=game.pk)
