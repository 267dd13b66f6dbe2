"""The boardgame.io peer of bench/socket_moves.py: its server, and players speaking its protocol.

The peer (bench/peer/: boardgame.io 0.50.2, the Othello of othello.js, bgio-postgres on a
PostgreSQL database of its own) runs as `node bench/peer/server.js PORT DATABASE_URL`; `npm ci
--prefix bench/peer` installs it. Its players here speak what boardgame.io's own client sends
(`boardgame.io/client` with the SocketIO transport): socket.io 4 over a WebSocket
(`/socket.io/?EIO=4&transport=websocket`, namespace `/othello`), `sync` once per match, then
`update` with a `MAKE_MOVE` action, the state's `_stateID` and the player's credentials. The
server answers every client of the match with an `update` carrying the new state; the mover's
own copy of it is the move's acknowledgement (an illegal or stale move gets no answer at all,
which boardgame.io only logs). Matches are made and joined through boardgame.io's Lobby API on
the same port before the run; past the last, a finished one is followed by `playAgain` and a join
of the other seat, as our players rematch with the seats swapped (one `playAgain` per match: two
at once would make two).

A small socket.io client rather than python-socketio: the same `websockets` as our side, no new
dependency, and the few frames this needs (Engine.IO open/ping/pong, Socket.IO connect/event).
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
import subprocess
import time
from pathlib import Path
from typing import Any

from bench import loadkit
from circles.rules import Position

PEER_DIR = Path(__file__).resolve().parent / "peer"
GAME = "othello"
NAMESPACE = f"/{GAME}"
ANSWER_TIMEOUT = 5.0


def start_server(processes: loadkit.Processes, port: int, database_url: str) -> Any:
    if not (PEER_DIR / "node_modules" / "boardgame.io").exists():
        raise SystemExit("The peer is not installed: npm ci --prefix bench/peer")
    print(f"$ node bench/peer/server.js {port} {database_url}", flush=True)
    process = subprocess.Popen(
        ["node", str(PEER_DIR / "server.js"), str(port), database_url],
        cwd=PEER_DIR,
        stdout=processes.log,
        stderr=subprocess.STDOUT,
    )
    processes.started.append(process)
    return process


async def wait_ready(port: int, process: Any) -> None:
    """Until the Lobby API lists the game (the database is synced before the server listens)."""
    await loadkit.wait_ready(port, process, path="/games", ready=(200,))


class SocketIO:
    """One socket.io 4 connection to one namespace, as socket.io-client over WebSocket only."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.socket: Any = None
        self.events: asyncio.Queue = asyncio.Queue()
        self.reader: asyncio.Task | None = None

    async def connect(self) -> None:
        import websockets

        self.socket = await websockets.connect(
            f"ws://{loadkit.HOST}:{self.port}/socket.io/?EIO=4&transport=websocket",
            open_timeout=30,
            ping_interval=None,
        )
        opened = await self.socket.recv()
        if not opened.startswith("0"):
            raise RuntimeError(f"no Engine.IO open packet: {opened[:80]!r}")
        await self.socket.send(f"40{NAMESPACE},")
        connected = await self.socket.recv()
        if not connected.startswith(f"40{NAMESPACE},"):
            raise RuntimeError(f"namespace refused: {connected[:120]!r}")
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        prefix = f"42{NAMESPACE},"
        async for packet in self.socket:
            if packet == "2":  # the server's ping: answered, or it drops the connection
                await self.socket.send("3")
            elif packet.startswith(prefix):
                event, *args = json.loads(packet[len(prefix) :])
                self.events.put_nowait((event, args))

    async def emit(self, event: str, *args: Any) -> None:
        await self.socket.send(f"42{NAMESPACE}," + json.dumps([event, *args]))

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        if self.socket is not None:
            await self.socket.close()


def legal_cells(state: dict[str, Any]) -> list[int]:
    """The cells the player to move may play, by circles.rules (the same rules, another engine:
    a disagreement with the peer shows as a move without an answer)."""
    board = state["G"]["board"]
    white = sum(1 << cell for cell, disc in enumerate(board) if disc == 1)
    black = sum(1 << cell for cell, disc in enumerate(board) if disc == 2)
    turn = 0 if state["ctx"]["currentPlayer"] == "0" else 1
    return Position(white, black, turn).legal_squares()


class Pair:
    """What the two players of a game share: a finished match's next one (the first to ask makes
    it and joins it first), whether both have joined it, and who has synced it."""

    def __init__(self) -> None:
        self.nexts: dict[str, asyncio.Future] = {}
        self.synced: dict[str, set[str]] = collections.defaultdict(set)
        self.both_synced: dict[str, asyncio.Event] = collections.defaultdict(asyncio.Event)
        self.joined: dict[str, asyncio.Event] = collections.defaultdict(asyncio.Event)


class PeerPlayer:
    """One player: its seat in a match, making its move as soon as an update says it is its turn."""

    def __init__(
        self, port: int, rec: Any, name: str, seed: str, pair: Pair, think: float = 0.0
    ) -> None:
        self.port = port
        self.think = think
        self.rec = rec
        self.name = name
        self.pair = pair
        self.rng = random.Random(f"{seed}:{name}")
        self.http = loadkit.HttpClient(port)
        self.sio = SocketIO(port)
        self.match = self.seat = self.credentials = None
        # The next matches made for this pair before the run, (match, seat, credentials) each.
        self.upcoming: list[tuple[str, str, str]] = []

    async def lobby(self, method: str, path: str, body: Any = None) -> Any:
        status, answer = await self.http.json(method, f"/games/{GAME}{path}", body)
        if status != 200:
            raise RuntimeError(f"{method} {path}: {status} {answer}")
        return answer

    async def join(self, match: str, seat: str) -> tuple[str, str, str]:
        joined = await self.lobby(
            "POST", f"/{match}/join", {"playerID": seat, "playerName": self.name}
        )
        self.match, self.seat, self.credentials = match, seat, joined["playerCredentials"]
        return self.match, self.seat, self.credentials

    async def sync(self) -> dict[str, Any]:
        await self.sio.emit("sync", self.match, self.seat, self.credentials, 2)
        return await self.next_state("sync")

    async def arrive(self) -> dict[str, Any]:
        """The first sync of a match, once the opponent has synced it too: the server sends a
        match's updates only to the sockets that synced it, so a first move made before the
        opponent's sync would never reach it. (The players wait for each other here, in the load
        generator, rather than for boardgame.io's `matchData` saying both are connected: two
        syncs at once each write the match's metadata, and one of the two connections is lost.)"""
        state = await self.sync()
        synced, both = self.pair.synced[self.match], self.pair.both_synced[self.match]
        synced.add(self.seat)
        if len(synced) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), ANSWER_TIMEOUT)
        return state

    async def next_state(self, wanted: str = "update") -> dict[str, Any]:
        """The next state of this player's match (`sync` or `update`; other events skipped)."""
        while True:
            event, args = await asyncio.wait_for(self.sio.events.get(), ANSWER_TIMEOUT)
            if event == wanted and args[0] == self.match:
                return args[1]["state"] if event == "sync" else args[1]

    async def play_again(self) -> dict[str, Any]:
        """The next match, its seats swapped (not counted as a move)."""
        started = time.monotonic()
        other_seat = "1" if self.seat == "0" else "0"
        following = self.pair.nexts.get(self.match)
        if following is None:
            following = self.pair.nexts[self.match] = asyncio.get_running_loop().create_future()
            body = {"playerID": self.seat, "credentials": self.credentials}
            answer = await self.lobby("POST", f"/{self.match}/playAgain", body)
            match = answer["nextMatchID"]
            await self.join(match, other_seat)
            following.set_result(match)
            await asyncio.wait_for(self.pair.joined[match].wait(), ANSWER_TIMEOUT)
        else:
            # One at a time, and both before either syncs: a join and a sync each write the
            # match's whole metadata from what they read, so the second of two at once can
            # drop the other player's credentials (its sync is then refused, without an answer).
            match = await following
            await self.join(match, other_seat)
            self.pair.joined[match].set()
        state = await self.arrive()
        self.rec.add("rematch", started, 200)
        return state

    async def play(self) -> None:
        await self.sio.connect()
        state = await self.arrive()
        while not self.rec.stop:
            if state["ctx"].get("gameover") is not None and self.upcoming:
                started = time.monotonic()
                self.match, self.seat, self.credentials = self.upcoming.pop(0)
                state = await self.arrive()
                self.rec.add("next_game", started, 200)
                continue
            if state["ctx"].get("gameover") is not None:
                state = await self.play_again()
                continue
            if state["ctx"]["currentPlayer"] != self.seat:
                try:
                    state = await self.next_state()
                except TimeoutError:  # the opponent's move is late: ask again
                    self.rec.failures["no update within 5 s: synced"] += 1
                    state = await self.sync()
                continue
            cells = legal_cells(state)
            if not cells:
                self.rec.failures["peer says move, rules say pass"] += 1
                state = await self.next_state()
                continue
            cell = self.rng.choice(cells)
            if self.think:
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
            action = {
                "type": "MAKE_MOVE",
                "payload": {
                    "type": "place",
                    "args": [cell],
                    "playerID": self.seat,
                    "credentials": self.credentials,
                },
            }
            sent_id = state["_stateID"]
            started = time.monotonic()
            await self.sio.emit("update", action, sent_id, self.match, self.seat)
            try:
                while (state := await self.next_state())["_stateID"] <= sent_id:
                    pass
            except TimeoutError:
                self.rec.add("move", started, 504)
                self.rec.failures["move without an update within 5 s"] += 1
                state = await self.sync()
                continue
            self.rec.add("move", started, 200)

    async def run(self) -> None:
        try:
            await self.play()
        except Exception as error:
            self.rec.failures[f"player stopped: {type(error).__name__}: {error}"[:160]] += 1
        finally:
            await self.sio.close()
            await self.http.close()


async def make_players(
    port: int, rec: Any, players: int, rounds: int, seed: str, think: float = 0.0
) -> list[PeerPlayer]:
    """`players` players in players/2 pairs, each pair with `rounds` new matches (seats swapped
    from one to the next), each player joined to its seat of each."""
    made = []
    for index in range(0, players, 2):
        pair = Pair()
        first = PeerPlayer(port, rec, f"peer-p{index}", seed, pair, think)
        second = PeerPlayer(port, rec, f"peer-p{index + 1}", seed, pair, think)
        made += [first, second]
        joined: dict[PeerPlayer, list[tuple[str, str, str]]] = {first: [], second: []}
        for round_ in range(rounds):
            created = await first.lobby("POST", "/create", {"numPlayers": 2})
            for seat, player in enumerate((first, second) if round_ % 2 == 0 else (second, first)):
                joined[player].append(await player.join(created["matchID"], str(seat)))
        for player in (first, second):
            (player.match, player.seat, player.credentials), *player.upcoming = joined[player]
    return made
