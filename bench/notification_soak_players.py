"""The notification soak's players (bench/notification_soak.py runs them): each polls its game,
moves on its turn and asks for a rematch when it ends, with `ws/me/` open or away; beside them,
invitations declined or withdrawn, and friendships asked, accepted and ended. What they do and
see is written as JSON lines (`frames.jsonl`, `client.jsonl`) for bench/notification_audit.py's
report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

from bench import loadkit

OVER = ("finished", "aborted", "cancelled")


class Log:
    """A JSON line file, written as things happen."""

    def __init__(self, path: Path) -> None:
        self.file = path.open("a")

    def write(self, **record: Any) -> None:
        self.file.write(json.dumps(record) + "\n")

    def close(self) -> None:
        self.file.close()


class Run:
    def __init__(self, args: argparse.Namespace, ports: list[int], run_dir: Path) -> None:
        self.args = args
        self.ports = ports
        self.stop = False
        self.frames = Log(run_dir / "frames.jsonl")
        self.client = Log(run_dir / "client.jsonl")
        self.failures: dict[str, int] = {}
        self.reconnects = 0

    def fail(self, what: str) -> None:
        self.failures[what[:160]] = self.failures.get(what[:160], 0) + 1


class Person:
    """One player: polls its game, moves on its turn, asks for a rematch when it ends; with
    `ws/me/` open (channel "socket") or away (channel "push")."""

    def __init__(self, info: dict[str, Any], run: Run, index: int) -> None:
        self.info = info
        self.run = run
        # The servers behind a load balancer: each player keeps to one of them.
        self.port = run.ports[index % len(run.ports)]
        self.game = info["game"]
        self.client = loadkit.HttpClient(self.port, info["token"])
        self.rng = random.Random(info["user"])
        think = run.args.computer_think_ms if info["computer"] else run.args.think_ms
        self.think = think / 1000

    async def me_socket(self) -> None:
        """Keep `ws/me/` open, recording every frame as it arrives (opened again if cut)."""
        while not self.run.stop:
            try:
                async with loadkit.open_socket(
                    self.port, "/ws/me/", self.info["token"]
                ) as websocket:
                    self.run.frames.write(user=self.info["id"], at=time.time(), open=True)
                    async for frame in websocket:
                        self.run.frames.write(
                            user=self.info["id"], at=time.time(), frame=json.loads(frame)
                        )
            except Exception as error:
                if self.run.stop:
                    return
                self.run.fail(f"ws/me/ closed: {type(error).__name__}")
            self.run.frames.write(user=self.info["id"], at=time.time(), open=False)
            self.run.reconnects += 1
            await asyncio.sleep(0.5)

    async def request(
        self, method: str, path: str, body: Any = None, *, aside: bool = False
    ) -> tuple[int, Any]:
        """One request on the player's connection (`aside`: on a connection of its own, for
        the invitations and friends, which run beside the player's game); a cut connection is
        tried again after a pause."""
        for _ in range(20):
            client = loadkit.HttpClient(self.port, self.info["token"]) if aside else None
            try:
                return await (client or self.client).json(method, path, body)
            except (OSError, asyncio.IncompleteReadError) as error:
                self.run.fail(f"{method} {path.split('/')[3]}: {type(error).__name__}")
                await self.client.close()
                await asyncio.sleep(0.5)
            finally:
                if client is not None:
                    await client.close()
        raise RuntimeError(f"{method} {path}: no answer")

    async def get_game(self) -> dict[str, Any] | None:
        status, envelope = await self.request("GET", f"/api/v1/games/{self.game}/")
        if status != 200:
            self.run.fail(f"GET game {status}")
            return None
        return envelope

    async def play(self) -> None:
        while not self.run.stop:
            envelope = await self.get_game()
            if envelope is None:
                await asyncio.sleep(self.run.args.poll_ms / 1000)
                continue
            if envelope["status"] in OVER:
                await self.rematch()
                continue
            if envelope["status"] != "active" or not envelope["legal_moves"]:
                await asyncio.sleep(self.run.args.poll_ms / 1000)
                continue
            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
            status, answer = await self.request(
                "POST",
                f"/api/v1/games/{self.game}/moves/",
                {
                    "expected_version": envelope["version"],
                    "move": self.rng.choice(envelope["legal_moves"]),
                },
            )
            if status == 200:
                self.run.client.write(
                    type="move", game=self.game, version=answer["version"], at=time.time()
                )
            elif status != 409:
                self.run.fail(f"move {status} {json.dumps(answer)[:60]}")

    async def rematch(self) -> None:
        status, answer = await self.request("POST", f"/api/v1/games/{self.game}/rematch/")
        if status not in (200, 201):
            self.run.fail(f"rematch {status}")
            await asyncio.sleep(1)
            return
        self.game = answer["id"]
        while not self.run.stop:
            status, listed = await self.request("GET", "/api/v1/invitations/?direction=incoming")
            # A page of invitations, or (the database refusing) an error: none this time.
            rows = listed.get("results", []) if isinstance(listed, dict) else (listed or [])
            for row in rows:
                if row["game"] == self.game:
                    await self.request("POST", f"/api/v1/invitations/{row['id']}/accept/")
            envelope = await self.get_game()
            if envelope is not None and envelope["status"] != "open":
                return
            await asyncio.sleep(self.run.args.poll_ms / 1000)

    async def main(self) -> None:
        try:
            await self.play()
        except Exception as error:
            self.run.fail(f"player stopped: {type(error).__name__}: {error}")
        finally:
            await self.client.close()


async def inviting(run: Run, people: list[Person]) -> None:
    """Every `--invite-every` s an invitation to a game, declined or withdrawn after a while."""
    rng = random.Random("invitations")
    turn = 0
    while not run.stop:
        await asyncio.sleep(run.args.invite_every)
        inviter, invitee = rng.sample(people, 2)
        status, envelope = await inviter.request(
            "POST",
            "/api/v1/games/",
            {"kind": "circles", "seats": [{"user": invitee.info["user"]}]},
            aside=True,
        )
        if status != 201:
            run.fail(f"invite {status} {json.dumps(envelope)[:60]}")
            continue
        invitation = envelope["invitations"][0]["id"]
        await asyncio.sleep(rng.uniform(0.5, 2))
        turn += 1
        if turn % 2:
            status, _ = await invitee.request(
                "POST", f"/api/v1/invitations/{invitation}/decline/", aside=True
            )
        else:
            status, _ = await inviter.request(
                "POST", f"/api/v1/invitations/{invitation}/cancel/", aside=True
            )
        if status not in (200, 204):
            run.fail(f"invitation answer {status}")


async def befriending(run: Run, people: list[Person]) -> None:
    """Every `--friend-every` s a friend request, accepted, then the friendship ended."""
    rng = random.Random("friends")
    while not run.stop:
        await asyncio.sleep(run.args.friend_every)
        asker, asked = rng.sample(people, 2)
        status, answer = await asker.request(
            "POST", "/api/v1/friends/requests/", {"username": asked.info["user"]}, aside=True
        )
        if status != 201 or not answer.get("request"):
            run.fail(f"friend request {status} {json.dumps(answer)[:60]}")
            continue
        run.client.write(
            type="friend_request", to=asked.info["id"], by=asker.info["user"], at=time.time()
        )
        await asyncio.sleep(rng.uniform(0.5, 2))
        request = answer["request"]["id"]
        status, _ = await asked.request(
            "POST", f"/api/v1/friends/requests/{request}/accept/", aside=True
        )
        if status != 200:
            run.fail(f"friend accept {status}")
            continue
        run.client.write(
            type="friend_accepted", to=asker.info["id"], by=asked.info["user"], at=time.time()
        )
        await asyncio.sleep(rng.uniform(0.5, 2))
        status, _ = await asker.request(
            "DELETE", f"/api/v1/friends/{asked.info['id']}/", aside=True
        )
        if status != 204:
            run.fail(f"unfriend {status}")
