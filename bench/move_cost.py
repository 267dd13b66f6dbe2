"""Server CPU per request, in-process: a move (`POST /games/{id}/moves/`) against `GET /me/`.

    .venv/bin/python -m bench.move_cost --moves 1000
    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python -m bench.move_cost

Runs the requests through Django's ASGI handler in this process, as the server does (an event
loop; sync views in the one sync thread; the publish from that thread), but with no HTTP parsing
or network between client and view. The database and Redis are the real ones the settings name.
CPU time is the whole process's (`time.process_time`, every thread), so it does not count time
spent waiting on the database or Redis. Run it with production settings (`SECRET_KEY` set, so
`DEBUG` is off: no query log); requests are sent as HTTPS, as the TLS proxy forwards them.
Circles games between two people (created once per run with fresh users) are played to the end
and started again; each move is the engine's first legal move, chosen outside the timed part.
The publish goes to the configured channel layer (nobody listens); the queued notification tasks
are left in the queue (no worker runs) and deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import statistics
import time
import uuid


class AsgiClient:
    """Requests straight into an ASGI application (no sockets, no HTTP parsing), as HTTPS from
    the TLS proxy, signed in as an app is (`X-Session-Token`)."""

    def __init__(self, application, token: str) -> None:
        self.application = application
        self.token = token

    async def request(self, method: str, path: str, body: object = None, **headers: str):
        path, _, query = path.partition("?")
        content = json.dumps(body).encode() if body is not None else b""
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "https",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [
                (b"host", b"localhost"),
                (b"x-session-token", self.token.encode()),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(content)).encode()),
                *(
                    (name.lower().replace("_", "-").encode(), value.encode())
                    for name, value in headers.items()
                ),
            ],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 443),
        }
        delivered = False

        async def receive():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": content, "more_body": False}
            await asyncio.Event().wait()  # the client never disconnects

        response = Response()

        async def send(message):
            if message["type"] == "http.response.start":
                response.status = message["status"]
                response.headers = {k.decode().lower(): v.decode() for k, v in message["headers"]}
            elif message["type"] == "http.response.body":
                response.body += message.get("body", b"")

        await self.application(scope, receive, send)
        return response


class Response:
    status = 0
    headers: dict[str, str] = {}
    body = b""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument(
        "--application", default="greycircle.asgi:application", help="module:attribute"
    )
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "greycircle.settings")
    # Throttling runs as usual (its cost counts), with limits this run cannot reach.
    for scope in ("USER", "MOVES", "GAME_CREATE"):
        os.environ[f"THROTTLE_{scope}"] = "1000000/min"
    import django

    django.setup()
    from asgiref.sync import sync_to_async
    from django.conf import settings
    from django.core.management import call_command
    from django.utils import timezone
    from django_tasks_db.models import DBTaskResult

    from accounts.models import User
    from bench.load_setup import session_token_for
    from greycircle.games import invitations, registry, services
    from greycircle.games.models import Game, Invitation
    from greycircle.games.services import SeatSpec

    module, _, attribute = args.application.partition(":")
    application = getattr(importlib.import_module(module), attribute)
    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    rules = registry.get("circles").rules
    started = timezone.now()
    tag = uuid.uuid4().hex[:8]
    players = [
        User.objects.create_user(
            username=f"bench{tag}{side}", password=None, accept_invitations_from_anyone=True
        )
        for side in ("w", "b")
    ]

    clients = [AsgiClient(application, session_token_for(user)) for user in players]

    def new_game() -> tuple[Game, object]:
        game = services.game_create(
            creator=players[0], kind="circles", opponents=[SeatSpec(user=players[1])]
        )
        for invitation in Invitation.objects.filter(game=game):
            invitations.invitation_accept(invitation_id=invitation.pk, user=players[1])
        game.refresh_from_db()
        return game, rules.decode(game.state)

    async def timed(request, expected: int = 200) -> float:
        start = time.process_time()
        response = await request
        spent = time.process_time() - start
        assert response.status == expected, (response.status, response.body[:300])
        return spent

    async def run() -> dict[str, list[float]]:
        spent: dict[str, list[float]] = {"move": [], "me": [], "game": [], "unchanged": []}
        game, state = await sync_to_async(new_game)()
        version = game.version
        for number in range(args.warmup + args.moves):
            if rules.outcome(state) is not None:
                game, state = await sync_to_async(new_game)()
                version = game.version
            move = next(iter(rules.legal_moves(state)))
            body = {"expected_version": version, "move": rules.move_to_json(move)}
            cpu = await timed(
                clients[rules.to_move(state)].request(
                    "POST", f"/api/v1/games/{game.pk}/moves/", body
                )
            )
            if number >= args.warmup:
                spent["move"].append(cpu)
            state = rules.play(state, move)
            version += 1
        path = f"/api/v1/games/{game.pk}/"
        etag = (await clients[0].request("GET", path)).headers["etag"]
        for _ in range(args.moves):
            spent["me"].append(await timed(clients[0].request("GET", "/api/v1/me/")))
            spent["game"].append(await timed(clients[0].request("GET", path)))
            spent["unchanged"].append(
                await timed(clients[0].request("GET", path, if_none_match=etag), expected=304)
            )
        return spent

    spent = asyncio.run(run())
    DBTaskResult.objects.filter(
        task_path="greycircle.notifications.tasks.notifications_send", enqueued_at__gte=started
    ).delete()

    def report(name: str, values: list[float]) -> float:
        median = statistics.median(values) * 1000
        mean = statistics.fmean(values) * 1000
        p95 = statistics.quantiles(values, n=20)[-1] * 1000
        print(f"{name:<28} median {median:6.2f} ms  mean {mean:6.2f} ms  p95 {p95:6.2f} ms CPU")
        return median

    database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    print(f"database {database}, channel layer {layer}, {args.moves} requests each")
    moves = report("POST /games/{id}/moves/", spent["move"])
    me = report("GET /me/", spent["me"])
    report("GET /games/{id}/", spent["game"])
    report("GET /games/{id}/ (304)", spent["unchanged"])
    print(f"a move costs {moves / me:.2f}x GET /me/")


if __name__ == "__main__":
    main()
