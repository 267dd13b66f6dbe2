"""The notification soak's database side (run under Django by bench/notification_soak.py, which
never imports Django itself; prints one JSON object).

    DATABASE_URL=... REDIS_URL=... .venv/bin/python bench/notification_audit.py setup --prefix P
    DATABASE_URL=... REDIS_URL=... .venv/bin/python bench/notification_audit.py report \\
        --run-dir DIR

`setup` creates the 20 players once (`{prefix}-p{i}`), ends what an earlier run left (games in
play, friendships and friend requests among them), starts the games (people against people and
against computers, every kind) and installs the audit's logs: two tables filled by deferred
constraint triggers, which run as their transaction commits, so each row's `at` is the moment
(within a millisecond) that the change became visible:

- `bench_game_log`: every write of a game row (id, version, status, to_move): the commit of each
  change of a game, computer moves included;
- `bench_inbox_log`: every write of a notification row (its recipient, kind, game, version,
  text, and whether the write kept news: an insert, or a refresh that moved `created`).

`report` compares the changes (the game log, the invitations table, the load generator's own
record of friend requests and answers) with what each recipient got: inbox writes, `ws/me/`
frames (recorded by the load generator as they arrived) and pushes (recorded by the local push
service as they arrived), and gives the latencies from each change's commit and the audit's
counts (lost, duplicated, out of order).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

# The app's tree (BENCH_APP_DIR, on PYTHONPATH: bench/loadkit.py) holds bench/ too.
from bench.load_setup import PASSWORD, bench_players, session_token_for

# (kind, computer level or None for people, how many people): the games of one run.
PEOPLE_GAMES = [("circles", 2), ("circles", 2), ("cirkis", 2), ("cirkis", 2), ("kingscorner", 4)]
COMPUTER_GAMES = [
    ("circles", "hard"),
    ("circles", "hard"),
    ("circles", "hard"),
    ("cirkis", "hard"),
    ("cirkis", "hard"),
    ("cirkis", "hard"),
    ("kingscorner", "normal"),
    ("kingscorner", "normal"),
]
PLAY_EVENTS = ("your_turn", "game_over")
DOWN_WINDOW = 30.0

LOG_SQL = """
CREATE TABLE IF NOT EXISTS bench_game_log (
    id bigserial PRIMARY KEY, game_id bigint, version integer, status text, to_move integer,
    at timestamptz);
CREATE TABLE IF NOT EXISTS bench_inbox_log (
    id bigserial PRIMARY KEY, notification_id bigint, recipient_id bigint, kind text, text text,
    game_id bigint, game_version integer, news boolean, at timestamptz);
CREATE OR REPLACE FUNCTION bench_game_logged() RETURNS trigger AS $$
BEGIN
    INSERT INTO bench_game_log (game_id, version, status, to_move, at)
    VALUES (NEW.id, NEW.version, NEW.status, NEW.to_move, clock_timestamp());
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION bench_inbox_logged() RETURNS trigger AS $$
BEGIN
    INSERT INTO bench_inbox_log
        (notification_id, recipient_id, kind, text, game_id, game_version, news, at)
    VALUES (NEW.id, NEW.recipient_id, NEW.kind, NEW.text, NEW.game_id, NEW.game_version,
            TG_OP = 'INSERT' OR OLD.created IS DISTINCT FROM NEW.created, clock_timestamp());
    RETURN NULL;
END $$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS bench_game_log ON games_game;
CREATE CONSTRAINT TRIGGER bench_game_log AFTER INSERT OR UPDATE ON games_game
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bench_game_logged();
DROP TRIGGER IF EXISTS bench_inbox_log ON notifications_notification;
CREATE CONSTRAINT TRIGGER bench_inbox_log AFTER INSERT OR UPDATE ON notifications_notification
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bench_inbox_logged();
TRUNCATE bench_game_log, bench_inbox_log;
"""


def setup(args: argparse.Namespace) -> dict[str, Any]:
    from django.db import connection
    from django.db.models import Q

    from accounts.models import FriendRequest, Friendship
    from greycircle.games import invitations, services
    from greycircle.games.models import Invitation, InvitationStatus
    from greycircle.push.models import WebPushSubscription

    people = sum(size for _, size in PEOPLE_GAMES)
    computer_games = COMPUTER_GAMES[: args.computers]
    names = [f"{args.prefix}-p{i}" for i in range(people + len(COMPUTER_GAMES))]
    users = bench_players(names)
    FriendRequest.objects.filter(Q(from_user__in=users) | Q(to_user__in=users)).delete()
    Friendship.objects.filter(Q(user__in=users) | Q(friend__in=users)).delete()
    # An earlier run's browsers (their push service is gone: every push to them would fail and
    # be retried) and its tasks (this run's workers would deliver its backlog) go too.
    WebPushSubscription.objects.filter(user__in=users).delete()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM django_tasks_database_dbtaskresult")
        cursor.execute(LOG_SQL)

    players: list[dict[str, Any]] = []

    def player(user, game, seat: int, channel: str, computer: str | None = None) -> None:
        players.append(
            {
                "user": user.username,
                "id": user.pk,
                "token": session_token_for(user),
                "game": game.pk,
                "seat": seat,
                "channel": channel,  # "socket": ws/me/ open; "push": no socket, Web Push
                "computer": computer,
            }
        )

    index = 0
    for kind, size in PEOPLE_GAMES:
        seated = users[index : index + size]
        index += size
        game = services.game_create(
            creator=seated[0],
            kind=kind,
            opponents=[services.SeatSpec(user=user) for user in seated[1:]],
        )
        pending = Invitation.objects.filter(game=game, status=InvitationStatus.PENDING)
        for invitation in pending.select_related("invitee"):
            invitations.invitation_accept(invitation_id=invitation.pk, user=invitation.invitee)
        for seat, user in enumerate(seated):
            # Half the people of each game keep ws/me/ open, the other half are away (push).
            player(user, game, seat, "socket" if seat < size // 2 else "push")
    for kind, level in computer_games:
        user = users[index]
        index += 1
        game = services.game_create(
            creator=user, kind=kind, opponents=[services.SeatSpec(ai_level=level)]
        )
        player(user, game, 0, "socket", computer=level)
    return {"password": PASSWORD, "players": players}


# --- the report ------------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    with path.open() as file:
        return [json.loads(line) for line in file if line.strip()]


def percentiles(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)

    def at(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] * 1000)

    return {"n": len(ordered), "p50_ms": at(0.5), "p99_ms": at(0.99), "max_ms": at(1.0)}


def report(args: argparse.Namespace) -> dict[str, Any]:
    from django.db import connection

    from greycircle.games.models import Invitation, Seat

    run = Path(args.run_dir)
    meta = json.loads((run / "run.json").read_text())
    start, end = meta["start"], meta["end"]
    players = meta["players"]
    channel_of = {p["id"]: p["channel"] for p in players}
    name_of = {p["id"]: p["user"] for p in players}
    user_ids = set(channel_of)

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT game_id, version, status, to_move, extract(epoch from at) FROM bench_game_log "
            "ORDER BY at, id"
        )
        game_rows = cursor.fetchall()
        cursor.execute(
            "SELECT notification_id, recipient_id, kind, text, game_id, game_version, "
            "extract(epoch from at) FROM bench_inbox_log WHERE news ORDER BY at, id"
        )
        inbox_rows = cursor.fetchall()
    games = {game_id for game_id, *_ in game_rows}
    seats: dict[int, dict[int, int | None]] = collections.defaultdict(dict)
    for seat in Seat.objects.filter(game_id__in=games).values("game_id", "index", "user_id"):
        seats[seat["game_id"]][seat["index"]] = seat["user_id"]

    # Each change's commit: the first write of a game at a version.
    commit: dict[tuple[int, int], float] = {}
    history: dict[int, list[tuple[int, str, int | None, float]]] = collections.defaultdict(list)
    for game_id, version, status, to_move, at in game_rows:
        at = float(at)
        if (game_id, version) not in commit:
            commit[game_id, version] = at
            history[game_id].append((version, status, to_move, at))

    # Expected: the news of every move of a game in play (who moved: the seat to move before).
    expected: list[dict[str, Any]] = []
    for game_id, rows in history.items():
        people = [uid for uid in seats[game_id].values() if uid is not None]
        for (_, before, mover, _), (version, status, to_move, at) in itertools.pairwise(rows):
            if before != "active" or not start <= at <= end:
                continue
            actor = seats[game_id].get(mover) if mover is not None else None
            told: list[tuple[int, str]] = []
            if status == "active" and to_move is not None:
                uid = seats[game_id].get(to_move)
                if uid is not None and uid != actor:
                    told.append((uid, "your_turn"))
            if status == "finished":
                told += [(uid, "game_over") for uid in people if uid != actor]
            for uid, event in told:
                if uid in user_ids:
                    expected.append(
                        {
                            "user": uid,
                            "event": event,
                            "game": game_id,
                            "version": version,
                            "at": at,
                            "inbox": len(people) >= 2,
                        }
                    )

    received = read_jsonl(run / "frames.jsonl")
    frames = [f for f in received if f.get("frame", {}).get("type") == "notification"]
    # When each socket was down: from its close to its next open (or the end).
    down: dict[int, list[tuple[float, float]]] = collections.defaultdict(list)
    closed_at: dict[int, float] = {}
    for mark in received:
        if mark.get("open") is False:
            closed_at[mark["user"]] = mark["at"]
        elif mark.get("open") is True and mark["user"] in closed_at:
            down[mark["user"]].append((closed_at.pop(mark["user"]), mark["at"]))
    for uid, at in closed_at.items():
        down[uid].append((at, float("inf")))

    def socket_down(uid: int, since: float) -> bool:
        """Whether `uid`'s socket was down within DOWN_WINDOW s of `since` (a frame sent then
        is not for that socket: the next one's hello and the inbox catch up)."""
        return any(a <= since + DOWN_WINDOW and b >= since for a, b in down.get(uid, []))

    pushes = read_jsonl(run / "pushes.jsonl")
    client = read_jsonl(run / "client.jsonl")

    # --- latency of "your turn" and "game over" ---
    inbox_at: dict[tuple, list[float]] = collections.defaultdict(list)
    for _, recipient, kind, _, game_id, version, at in inbox_rows:
        inbox_at[recipient, game_id, version, kind].append(float(at))
    frame_at: dict[tuple, list[float]] = collections.defaultdict(list)
    for f in frames:
        n = f["frame"]["notification"]
        frame_at[f["user"], n.get("event"), n.get("game"), n.get("version")].append(f["at"])
    latency: dict[str, list[float]] = collections.defaultdict(list)
    queued = queued_news()
    # When the workers stopped: what was still queued then had waited at least that long.
    reported = meta.get("stopped", time.time())
    queued_3: dict[tuple[Any, ...], bool] = {}
    for (uid, event, game, _), still in queued.items():
        queued_3[uid, event, game] = queued_3.get((uid, event, game), False) or still

    def waiting(uid: int, event: str, game: int | None) -> bool:
        return queued_3.get((uid, event, game), False)

    # Events still queued when the report is made count at their wait so far: the percentiles
    # are then lower bounds ("censored" says how many).
    censored: collections.Counter = collections.Counter()

    def superseded(e: dict[str, Any]) -> str:
        """An event not delivered while a newer one about its game was: queued and dropped as
        older when its turn came (right), or never queued (lost)."""
        if (e["user"], e["event"], e["game"], e["version"]) in queued:
            return "superseded"
        return "lost: never queued, newer news came"

    audit = {channel: collections.Counter() for channel in ("inbox", "ws_me", "push")}
    newest_inbox: dict[tuple[int, int], int] = {}
    newest_frame: dict[tuple[int, int], int] = {}
    for _, recipient, kind, _, game_id, version, _ in inbox_rows:
        if game_id is not None and version is not None and kind in PLAY_EVENTS:
            key = (recipient, game_id)
            newest_inbox[key] = max(newest_inbox.get(key, -1), version)
    for f in frames:
        n = f["frame"]["notification"]
        if n.get("event") in PLAY_EVENTS:
            key = (f["user"], n["game"])
            newest_frame[key] = max(newest_frame.get(key, -1), n["version"])
    for e in expected:
        key = (e["user"], e["game"])
        if e["inbox"]:
            got = inbox_at.get((e["user"], e["game"], e["version"], e["event"]))
            if got:
                audit["inbox"]["delivered"] += 1
                latency["inbox"].append(min(got) - e["at"])
            elif newest_inbox.get(key, -1) > e["version"]:
                audit["inbox"][superseded(e)] += 1
            elif queued.get((e["user"], e["event"], e["game"], e["version"])):
                audit["inbox"]["still queued at the end"] += 1
                latency["inbox"].append(reported - e["at"])  # at least this
                censored["inbox"] += 1
            else:
                audit["inbox"]["lost"] += 1
                audit["inbox"][f"lost {e['event']}"] += 1
        if channel_of[e["user"]] == "socket":
            got = frame_at.get((e["user"], e["event"], e["game"], e["version"]))
            if got:
                audit["ws_me"]["delivered"] += 1
                latency["ws_me" if e["inbox"] else "ws_me (against computers)"].append(
                    min(got) - e["at"]
                )
            elif newest_frame.get(key, -1) > e["version"]:
                audit["ws_me"][superseded(e)] += 1
            elif socket_down(e["user"], e["at"]):
                audit["ws_me"]["missed, socket down"] += 1
            elif queued.get((e["user"], e["event"], e["game"], e["version"])):
                audit["ws_me"]["still queued at the end"] += 1
                name = "ws_me" if e["inbox"] else "ws_me (against computers)"
                latency[name].append(reported - e["at"])
                censored[name] += 1
            else:
                audit["ws_me"]["lost"] += 1
                audit["ws_me"][f"lost {e['event']}"] += 1

    # Out of order and duplicates in the inbox: per recipient and game, a write about an older
    # version than one before it; the same (version, kind) written twice.
    seen_version: dict[tuple[int, int], int] = {}
    seen_write: collections.Counter = collections.Counter()
    for _, recipient, kind, _, game_id, version, _ in inbox_rows:
        if recipient not in user_ids:
            continue
        if game_id is not None and version is not None and kind in PLAY_EVENTS:
            key = (recipient, game_id)
            if version < seen_version.get(key, -1):
                audit["inbox"]["out_of_order"] += 1
            seen_version[key] = max(seen_version.get(key, -1), version)
        if game_id is not None:  # friends' news repeats (a pair befriends again): counted below
            seen_write[recipient, kind, game_id, version] += 1
    audit["inbox"]["duplicated"] += sum(count - 1 for count in seen_write.values())
    seen_version.clear()
    seen_frame: collections.Counter = collections.Counter()
    for f in frames:
        n = f["frame"]["notification"]
        if n.get("event") in PLAY_EVENTS:
            key = (f["user"], n["game"])
            if n["version"] < seen_version.get(key, -1):
                audit["ws_me"]["out_of_order"] += 1
            seen_version[key] = max(seen_version.get(key, -1), n["version"])
        if n.get("game") is not None:
            seen_frame[f["user"], json.dumps(n, sort_keys=True)] += 1
    audit["ws_me"]["duplicated"] += sum(count - 1 for count in seen_frame.values())

    # Invitations (the invitations table) and their answers.
    for invitation in Invitation.objects.filter(invitee_id__in=user_ids).values(
        "id", "game_id", "invitee_id", "inviter_id", "status", "created_at", "answered_at"
    ):
        created = invitation["created_at"].timestamp()
        if not start <= created <= end:
            continue
        answered = invitation["answered_at"].timestamp() if invitation["answered_at"] else end
        told = [(invitation["invitee_id"], "invitation", "invitation", created)]
        answer = invitation["status"]
        if answer in ("accepted", "declined") and invitation["inviter_id"] is not None:
            told.append(
                (invitation["inviter_id"], f"invitation_{answer}", "invitation_answered", answered)
            )
        elif answer == "cancelled":
            told.append((invitation["invitee_id"], "invitation_cancelled", None, answered))
        for uid, event, kind, happened in told:
            if kind is not None:
                got = [
                    row
                    for row in inbox_rows
                    if row[1] == uid and row[2] == kind and row[4] == invitation["game_id"]
                ]
                if got:
                    audit["inbox"]["delivered"] += 1
                elif waiting(uid, event, invitation["game_id"]):
                    audit["inbox"]["still queued at the end"] += 1
                else:
                    audit["inbox"]["lost"] += 1
                    audit["inbox"][f"lost {event}"] += 1
            if channel_of.get(uid) == "socket":
                got_frames = [
                    f
                    for f in frames
                    if f["user"] == uid
                    and f["frame"]["notification"].get("event") == event
                    and f["frame"]["notification"].get("game") == invitation["game_id"]
                ]
                if got_frames:
                    audit["ws_me"]["delivered"] += 1
                elif socket_down(uid, happened):
                    audit["ws_me"]["missed, socket down"] += 1
                elif waiting(uid, event, invitation["game_id"]):
                    audit["ws_me"]["still queued at the end"] += 1
                else:
                    audit["ws_me"]["lost"] += 1
                    audit["ws_me"][f"lost {event}"] += 1

    # Friend requests and acceptances: the load generator's record of each 201 and 200.
    wanted: collections.Counter = collections.Counter()
    for change in client:
        if change["type"] in ("friend_request", "friend_accepted"):
            wanted[change["to"], change["type"], change["by"]] += 1
    got_inbox: collections.Counter = collections.Counter()
    for _, recipient, kind, text, _, _, _ in inbox_rows:
        if kind in ("friend_request", "friend_accepted"):  # the log holds this run only
            got_inbox[recipient, kind, text.split(" ", 1)[0]] += 1
    got_frames: collections.Counter = collections.Counter()
    for f in frames:
        n = f["frame"]["notification"]
        if n.get("event") in ("friend_request", "friend_accepted"):
            got_frames[f["user"], n["event"], n.get("by")] += 1
    for key, count in wanted.items():
        audit["inbox"]["delivered"] += min(count, got_inbox[key])
        missing = max(0, count - got_inbox[key])
        if missing and waiting(key[0], key[1], None):
            audit["inbox"]["still queued at the end"] += missing
        else:
            audit["inbox"]["lost"] += missing
            audit["inbox"][f"lost {key[1]}"] += missing
        audit["inbox"]["duplicated"] += max(0, got_inbox[key] - count)
        if channel_of.get(key[0]) == "socket":
            audit["ws_me"]["delivered"] += min(count, got_frames[key])
            missing = max(0, count - got_frames[key])
            if missing and any(
                socket_down(key[0], change["at"])
                for change in client
                if (change.get("to"), change["type"], change.get("by")) == key
            ):
                audit["ws_me"]["missed, socket down"] += missing
            elif missing and waiting(key[0], key[1], None):
                audit["ws_me"]["still queued at the end"] += missing
            else:
                audit["ws_me"]["lost"] += missing
                audit["ws_me"][f"lost {key[1]}"] += missing
            audit["ws_me"]["duplicated"] += max(0, got_frames[key] - count)

    # Push: every write of news to the inbox of a player away (no socket) is pushed once, but
    # for a write that a newer one of the same notification replaced before its push went.
    # Every write counts (those of the warm-up too, whose pushes may come in the window); the
    # lost and the latencies are of the window's writes, the duplicates of their notifications.
    # Only what is to be pushed: the kinds the recipient's preferences push (the defaults: not
    # the mere answers), and not a notification read since (a withdrawn invitation's).
    from accounts.models import User
    from greycircle.notifications.models import Notification

    channels = getattr(User, "NOTIFICATION_CHANNELS", {})
    recipients = {user.pk: user for user in User.objects.filter(pk__in=user_ids)}
    read = set(
        Notification.objects.filter(recipient__in=user_ids, read=True).values_list("pk", flat=True)
    )
    writes: dict[int, list[tuple[float, int | None, int | None]]] = collections.defaultdict(list)
    for nid, recipient, kind, _, game_id, version, at in inbox_rows:
        field = channels.get(kind, {}).get("push")
        wanted = (
            getattr(recipients[recipient], field) if field and recipient in recipients else True
        )
        if channel_of.get(recipient) == "push" and wanted and nid not in read:
            writes[nid].append((float(at), game_id, version))
    # A push still to come: its task waits, or the notification's news is still queued.
    waiting_push: dict[int, bool] = {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT args_kwargs FROM django_tasks_database_dbtaskresult WHERE task_path LIKE %s "
            "AND status IN ('READY', 'RUNNING')",
            ["%webpush_send"],
        )
        for (args_kwargs,) in cursor.fetchall():
            value = json.loads(args_kwargs) if isinstance(args_kwargs, str) else args_kwargs
            waiting_push[value["args"][0]] = True
    pushed: dict[int, list[float]] = collections.defaultdict(list)
    for push in pushes:
        pushed[push["message"]["notification"]].append(push["at"])
    for nid, kept in writes.items():
        # The writes of the window's changes (a late delivery of one is written after it).
        in_window = [
            index
            for index, (at, game_id, version) in enumerate(kept)
            if start <= commit.get((game_id, version), at) <= end
        ]
        if not in_window:
            continue
        arrivals = sorted(pushed.get(nid, []))
        # A push carries the notification as it is when the push is sent (7c9664a: one per
        # edition), so it answers the last write before it; a write rewritten before any push
        # went is superseded by the newer, not lost.
        for index in in_window:
            at, game_id, version = kept[index]
            until = kept[index + 1][0] if index + 1 < len(kept) else float("inf")
            answers = [arrival for arrival in arrivals if at <= arrival < until]
            if not answers:
                if until != float("inf"):
                    audit["push"]["superseded"] += 1
                elif waiting_push.get(nid):
                    audit["push"]["still queued at the end"] += 1
                    if game_id is not None and (game_id, version) in commit:
                        latency["push"].append(reported - commit[game_id, version])
                        censored["push"] += 1
                else:
                    audit["push"]["lost"] += 1
                continue
            audit["push"]["delivered"] += 1
            audit["push"]["duplicated"] += len(answers) - 1
            if game_id is not None and (game_id, version) in commit:
                latency["push"].append(answers[0] - commit[game_id, version])

    # The same latency from the mover's HTTP answer (after the commit: a lower bound).
    answered = {(c["game"], c["version"]): c["at"] for c in client if c["type"] == "move"}
    for e in expected:
        if e["inbox"] and (e["game"], e["version"]) in answered:
            for at in inbox_at.get((e["user"], e["game"], e["version"], e["event"]), [])[:1]:
                latency["inbox, from the answer"].append(at - answered[e["game"], e["version"]])
            if channel_of[e["user"]] == "socket":
                key = (e["user"], e["event"], e["game"], e["version"])
                for at in frame_at.get(key, [])[:1]:
                    latency["ws_me, from the answer"].append(at - answered[e["game"], e["version"]])
    del name_of
    return {
        "task_wait": task_waits(start, end),
        "expected_play_events": len(expected),
        "latency": {
            name: {**percentiles(values), "censored": censored[name]}
            for name, values in latency.items()
        },
        "audit": {channel: dict(counts) for channel, counts in audit.items()},
        "moves_committed": sum(
            1 for (_, version), at in commit.items() if start <= at <= end and version > 0
        ),
    }


def queued_news() -> dict[tuple[Any, ...], bool]:
    """(user, event, game, version) of every notification the tasks' rows hold (the outbox):
    whether one of those tasks still waits (or runs)."""
    from django.db import connection

    found: dict[tuple[Any, ...], bool] = {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT args_kwargs, status IN ('READY', 'RUNNING') "
            "FROM django_tasks_database_dbtaskresult WHERE task_path LIKE %s",
            ["%notifications_send"],
        )
        for args_kwargs, waiting in cursor.fetchall():
            value = json.loads(args_kwargs) if isinstance(args_kwargs, str) else args_kwargs
            for item in (value.get("args") or [[]])[0]:
                data = item.get("data", {})
                key = (
                    item.get("user_id"),
                    item.get("event"),
                    data.get("game"),
                    data.get("version"),
                )
                found[key] = found.get(key, False) or waiting
    return found


def task_waits(start: float, end: float) -> dict[str, Any]:
    """How long the notification and push tasks queued in each minute of the window waited for
    a worker (started - enqueued, or still waiting at the end)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT task_path, extract(epoch from enqueued_at), "
            "extract(epoch from coalesce(started_at, now()) - greatest(enqueued_at, "
            "CASE WHEN run_after < '9999-01-01' THEN run_after ELSE enqueued_at END)) "
            "FROM django_tasks_database_dbtaskresult WHERE queue_name = 'notifications' "
            "AND enqueued_at >= to_timestamp(%s) AND enqueued_at <= to_timestamp(%s)",
            [start, end],
        )
        rows = cursor.fetchall()
        waits: dict[str, list[float]] = collections.defaultdict(list)
        for path, enqueued, wait in rows:
            minute = int((float(enqueued) - start) // 60) + 1
            waits[f"{path.rsplit('.', 1)[1]} minute {minute}"].append(max(0.0, float(wait)))
            waits[f"{path.rsplit('.', 1)[1]} all"].append(max(0.0, float(wait)))
        # How busy the workers that run only the notifications' queue were (share of the window).
        cursor.execute(
            "SELECT worker_ids->>0, bool_or(queue_name <> 'notifications'), "
            "sum(extract(epoch from least(finished_at, to_timestamp(%s)) - started_at)), count(*) "
            "FROM django_tasks_database_dbtaskresult WHERE started_at >= to_timestamp(%s) "
            "AND started_at <= to_timestamp(%s) AND finished_at IS NOT NULL GROUP BY 1",
            [end, start, end],
        )
        busy = [
            {"busy": round(float(seconds) / (end - start), 2), "tasks": count}
            for _, other_queues, seconds, count in cursor.fetchall()
            if not other_queues
        ]
    figures: dict[str, Any] = {name: percentiles(values) for name, values in sorted(waits.items())}
    figures["notification_workers"] = busy
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["setup", "report"])
    parser.add_argument("--prefix", default="bench-soak")
    parser.add_argument("--run-dir")
    parser.add_argument("--computers", type=int, default=len(COMPUTER_GAMES))
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "greycircle.settings")
    import django

    django.setup()
    result = setup(args) if args.command == "setup" else report(args)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
