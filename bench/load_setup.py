"""Users, sessions and games for the load benchmarks (run under Django; prints one JSON object).

    DATABASE_URL=... REDIS_URL=... .venv/bin/python -m bench.load_setup --pairs 25 --computer 0 \\
        --spectators 0 --prefix bench-load

The load generators (bench/http_moves.py, bench/spectators.py, bench/computer_turns.py) run this
as a subprocess before they start, so they themselves never import Django. It

- creates the users `{prefix}-p{i}` (players) and `{prefix}-s{i}` (spectators) once, all with the
  password `PASSWORD` (one hash, computed once) and `accept_invitations_from_anyone`;
- aborts every game of those users still waiting or in play (left over from an earlier run, so
  that the task worker has no old computer turns to play);
- starts `--pairs` Circles games between people (players 2i and 2i+1, every invitation
  accepted through the service) and `--computer` games of one player against the computer level
  `--level` (the player has seat 0, white, and moves first); with `--rounds R`, R games for each
  pair, seats swapped from one to the next as a rematch swaps them (a player's entry lists
  them all under `games`; `game` and `seat` are the first's);
- signs every user in by writing the session that allauth headless keeps for an app's
  `X-Session-Token` (the token is the session key), as `POST /_allauth/app/v1/auth/login` would
  but without hashing a password per user; the load generators log some players in through the
  API as well (`--api-logins`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

PASSWORD = "bench-load-pass-phrase-7"


def session_token_for(user) -> str:
    """A session for `user` as allauth headless keeps an app's sign-in (after `django.setup()`):
    its key is the app's `X-Session-Token`. No password is hashed, unlike a real log-in."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "accounts.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def bench_players(names: list[str]) -> list[Any]:
    """The users `names` (made if missing, password PASSWORD, anyone may invite them, no mail),
    with the games an earlier run left in play aborted (computer turns then do nothing)."""
    from django.contrib.auth.hashers import make_password

    from accounts.models import User
    from greycircle.games import services
    from greycircle.games.models import Game, GameStatus

    existing = {user.username: user for user in User.objects.filter(username__in=names)}
    password = make_password(PASSWORD)
    for name in names:
        if name not in existing:
            user = User(
                username=name,
                email=f"{name}@example.com",
                accept_invitations_from_anyone=True,
                email_game_invitation=False,
                email_game_over=False,
                email_reminder=False,
            )
            user.password = password
            user.save()
            existing[name] = user
    users = [existing[name] for name in names]

    stale = (
        Game.objects.filter(seats__user__in=users, status__in=[GameStatus.ACTIVE, GameStatus.OPEN])
        .values_list("pk", flat=True)
        .distinct()
    )
    for game_id in list(stale):
        try:
            services.game_abort(game_id=game_id)
        except Exception as error:  # already over, or an outage: not this run's business
            print(f"could not abort game {game_id}: {error}", file=sys.stderr)
    return users


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prefix", default="bench-load")
    parser.add_argument("--pairs", type=int, default=0, help="games between two people")
    parser.add_argument("--rounds", type=int, default=1, help="games for each pair")
    parser.add_argument("--computer", type=int, default=0, help="games against the computer")
    parser.add_argument("--level", default="hard", help="computer level of those games")
    parser.add_argument("--spectators", type=int, default=0)
    parser.add_argument(
        "--time-control",
        default="",
        help="make the games between people live at this time control (e.g. 60+60)",
    )
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "greycircle.settings")
    import django

    django.setup()

    from greycircle.games import invitations, services
    from greycircle.games.clocks import TimeControl
    from greycircle.games.models import Invitation, InvitationStatus

    time_control = TimeControl.parse(args.time_control) if args.time_control else None

    players = 2 * args.pairs + args.computer
    names = [f"{args.prefix}-p{i}" for i in range(players)]
    names += [f"{args.prefix}-s{i}" for i in range(args.spectators)]
    users = bench_players(names)

    out_players = []
    for pair in range(args.pairs):
        a, b = users[2 * pair], users[2 * pair + 1]
        games: dict[Any, list[dict[str, int]]] = {a: [], b: []}
        for round_ in range(args.rounds):
            first, second = (a, b) if round_ % 2 == 0 else (b, a)
            game = services.game_create(
                creator=first,
                kind="circles",
                opponents=[services.SeatSpec(user=second)],
                time_control=time_control,
            )
            pending = Invitation.objects.filter(game=game, status=InvitationStatus.PENDING)
            for invitation in pending.select_related("invitee"):
                invitations.invitation_accept(invitation_id=invitation.pk, user=invitation.invitee)
            for seat, user in enumerate((first, second)):
                games[user].append({"game": game.pk, "seat": seat})
        for user in (a, b):
            out_players.append(
                {
                    "user": user.username,
                    "token": session_token_for(user),
                    **games[user][0],
                    "games": games[user],
                }
            )
    for index in range(args.computer):
        user = users[2 * args.pairs + index]
        game = services.game_create(
            creator=user,
            kind="circles",
            opponents=[services.SeatSpec(ai_level=args.level)],
        )
        out_players.append(
            {
                "user": user.username,
                "token": session_token_for(user),
                "game": game.pk,
                "seat": 0,
                "computer": args.level,
            }
        )
    spectators = [
        {"user": user.username, "token": session_token_for(user)} for user in users[players:]
    ]
    json.dump({"password": PASSWORD, "players": out_players, "spectators": spectators}, sys.stdout)


if __name__ == "__main__":
    main()
