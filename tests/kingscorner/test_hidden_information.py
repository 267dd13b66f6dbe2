"""No player ever receives a card they may not see: 50 random 3-6 seat games.

Scripted players and computer players play to the end. Everything each audience received is
checked against the true state at that moment (replayed from the seed and the log): no card of
another hand, no card of the stock, no seed. Once a game is over the hands are shown to all, but
the stock never is.

Most games are played in-process, through the services, with what each audience would get built
by the same selectors the API and the sockets use: every seat's and a spectator's envelope after
every action, the envelope a move answers with, the move logs, and every envelope and notification
published to the channel layer. A few games go end to end through the REST API, the WebSocket
consumers and the task worker, to check the wiring in between.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.serializers.json import DjangoJSONEncoder
from rest_framework.test import APIClient

from greycircle.asgi import application
from greycircle.games import events, selectors, services, tasks
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec
from greycircle.notifications import delivery
from greycircle.notifications import tasks as notification_tasks
from kingscorner.cards import card_name
from kingscorner.rules import RULES
from tests.api.socket_frames import FramesChecked
from tests.factories import UserFactory, accept_invitations, game_started, let_anyone_invite

GAMES_IN_PROCESS = 47
GAMES_END_TO_END = 3
AI_LEVELS = ["easy", "normal"]
MAX_ACTIONS = 400
# Every move log is fetched this often (in actions), and once the game is over. (Only a log read
# during the game can show a leak: by the end every card drawn has been played or shown.)
LOG_EVERY = 10
# Sockets buffer up to 100 messages; a few arrive per action.
DRAIN_EVERY = 10
CARD_TOKEN = re.compile(r'"([A2-9TJQK][CDHS])"')


def cards_in(text: str) -> set[str]:
    return set(CARD_TOKEN.findall(text))


def new_player():
    return UserFactory()


# --- the true state, and what each seat may see of it --------------------------------------------


def states_by_move_count(game: Game) -> list[Any]:
    """The true state after 0, 1, 2, ... moves, replayed from the seed and the log."""
    state = RULES.new_game(game.seats.count(), seed=game.seed, options=game.options)
    states = [state]
    for data in game.moves.order_by("number").values_list("data", flat=True):
        state = RULES.play(state, RULES.parse_move(data))
        states.append(state)
    return states


def hidden_from(state: Any, seat: int | None) -> set[str]:
    """The cards `seat` (None: a spectator) must not see in `state`."""
    hidden = {card_name(card) for card in state.stock}
    if not state.over:
        for other, hand in enumerate(state.hands):
            if other != seat:
                hidden |= {card_name(card) for card in hand}
    return hidden


@dataclass
class Truth:
    """A finished game's true states, and what each seat had seen by each move."""

    game: Game
    states: list[Any]
    _seen: dict[tuple[int | None, int], set[str]] = field(default_factory=dict)

    def seen_by(self, seat: int | None, upto: int | None = None) -> set[str]:
        """Every card `seat` had seen on the table or in its hand after `upto` moves (None: by
        the end), and every hand once the game was over."""
        upto = len(self.states) - 1 if upto is None else upto
        if (seat, upto) not in self._seen:
            seen: set[str] = set()
            for moves, state in enumerate(self.states):
                seen |= {card_name(card) for pile in state.piles for card in pile}
                if seat is not None:
                    seen |= {card_name(card) for card in state.hands[seat]}
                if state.over:
                    seen |= {card_name(card) for hand in state.hands for card in hand}
                self._seen[seat, moves] = set(seen)
        return self._seen[seat, upto]

    def check(self, seat: int | None, payload: Any, *, at: int | None = None) -> None:
        """Fail if `payload`, received by `seat` after `at` moves (None: some time in the game),
        shows a card that seat may not see then, or the seed."""
        text = json.dumps(payload, cls=DjangoJSONEncoder)
        assert str(self.game.seed) not in text, "the seed reached a player"
        assert '"seed"' not in text
        envelope = payload.get("envelope", payload) if isinstance(payload, dict) else None
        if isinstance(envelope, dict) and "move_count" in envelope and envelope.get("state"):
            state = self.states[envelope["move_count"]]
            leaked = cards_in(text) & hidden_from(state, seat)
            assert not leaked, f"seat {seat} saw {leaked} at move {envelope['move_count']}"
        else:
            # Move logs and notifications: only cards this seat has seen on the table or in hand.
            leaked = cards_in(text) - self.seen_by(seat, at)
            assert not leaked, f"seat {seat} saw {leaked} after {at} moves in {payload}"


def choose(envelope: dict, rng: random.Random) -> dict:
    plays = [move for move in envelope["legal_moves"] if move["action"] != "end_turn"]
    if plays and rng.random() < 0.85:
        return rng.choice(plays)
    return {"action": "end_turn"}


def seats_for(rng: random.Random) -> tuple[int, list[str]]:
    """How many users play (seats 0..), and the computer levels of the seats after theirs."""
    seat_count = rng.randint(3, 6)
    human_count = rng.randint(1, min(3, seat_count))
    return human_count, [rng.choice(AI_LEVELS) for _ in range(seat_count - human_count)]


# --- in-process games -------------------------------------------------------------------------


@dataclass
class InProcess:
    """Runs services as the API and the worker would, and keeps what each audience received."""

    capture: Callable[..., Any]
    published: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    queued: list[tuple[int, int]] = field(default_factory=list)
    # (seat or None for spectators, moves played when received, payload)
    received: list[tuple[int | None, int | None, Any]] = field(default_factory=list)

    def run(self, service: Callable[..., Any], **kwargs: Any) -> Any:
        """Call a service and run what it left for after its commit: publishing, queueing."""
        with self.capture(execute=True):
            return service(**kwargs)

    def deliver(self, game: Game, seat_of_user: dict[int, int | None]) -> None:
        """Hand everything published since the last call to its audience."""
        prefix = f"game.{game.pk}."
        # Notifications go out with the envelopes of the change they announce.
        moves = max(
            (
                json.loads(m["frame"])["envelope"]["move_count"]
                for g, m in self.published
                if g.startswith(prefix)
            ),
            default=game.move_count,
        )
        for group, message in self.published:
            if group.startswith(prefix):
                audience = group.removeprefix(prefix)
                seat = None if audience == "spectators" else int(audience.removeprefix("seat"))
                frame = json.loads(message["frame"])
                self.received.append((seat, None, frame["envelope"]))
                # The log entries the frame carries, as of the move it announces.
                self.received.append((seat, frame["envelope"]["move_count"], frame["moves"]))
            else:
                user_id = int(group.removeprefix("user."))
                self.received.append((seat_of_user[user_id], moves, message))
        self.published.clear()


def play_in_process(world: InProcess, rng: random.Random, number: int) -> int:
    human_count, computers = seats_for(rng)
    users = [new_player() for _ in range(human_count)]
    spectator = new_player()
    viewers = [(seat, user) for seat, user in enumerate(users)] + [(None, spectator)]
    seat_of_user = {user.pk: seat for seat, user in viewers}
    game = world.run(
        game_started,
        creator=users[0],
        kind="kingscorner",
        opponents=[SeatSpec(user=user) for user in users[1:]]
        + [SeatSpec(ai_level=level) for level in computers],
    )
    world.received.append((0, 0, selectors.game_view_for(game=game, viewer=users[0])))
    world.deliver(game, seat_of_user)

    for action in range(MAX_ACTIONS):
        game = selectors.game_get(game_id=game.pk)
        views = {}
        for seat, user in viewers:
            views[seat] = selectors.game_view_for(game=game, viewer=user)
            world.received.append((seat, game.move_count, views[seat]))
            if action % LOG_EVERY == 0 or game.status != GameStatus.ACTIVE:
                log = selectors.moves_for(game=game, viewer=user)
                world.received.append((seat, game.move_count, log))
        if game.status != GameStatus.ACTIVE:
            break
        if world.queued:
            game_id, version = world.queued.pop(0)
            assert world.run(services.ai_take_turn, game_id=game_id, expected_version=version)
        else:
            seat = game.to_move
            assert seat < len(users), "the computer to move has its turn queued"
            game = world.run(
                services.move_submit,
                game_id=game.pk,
                user=users[seat],
                move=choose(views[seat], rng),
                expected_version=game.version,
            )
            answer = selectors.game_view_for(game=game, viewer=users[seat])
            world.received.append((seat, game.move_count, answer))
        world.deliver(game, seat_of_user)
    else:
        pytest.fail(f"game {number} did not end within {MAX_ACTIONS} actions")

    truth = Truth(game, states_by_move_count(game))
    for seat, at, payload in world.received:
        truth.check(seat, payload, at=at)
    checked = len(world.received)
    world.received.clear()
    return checked


@pytest.mark.django_db
def test_games_never_show_a_player_or_spectator_a_card_they_may_not_see(
    django_capture_on_commit_callbacks, monkeypatch
):
    world = InProcess(django_capture_on_commit_callbacks)
    monkeypatch.setattr(events, "publish", world.published.extend)
    # The players' notifications, which the worker keeps and publishes, published at once.
    monkeypatch.setattr(notification_tasks, "notifications_enqueue", delivery.notifications_publish)
    monkeypatch.setattr(
        tasks,
        "ai_turn_enqueue",
        lambda *, game_id, version: world.queued.append((game_id, version)),
    )
    rng = random.Random(20261130)
    checked = sum(play_in_process(world, rng, number) for number in range(GAMES_IN_PROCESS))
    assert checked > GAMES_IN_PROCESS * 100, "every game produced views, logs and frames to check"


# --- end to end: the REST API, the sockets and the task worker -------------------------------


@dataclass
class Player:
    user: Any
    seat: int
    client: APIClient
    cookie: bytes
    # (moves played when received, or None if not known, payload)
    received: list[tuple[int | None, Any]] = field(default_factory=list)
    sockets: list[WebsocketCommunicator] = field(default_factory=list)


def signed_in(user) -> tuple[APIClient, bytes]:
    client = APIClient()
    client.force_login(user)
    return client, f"sessionid={client.cookies['sessionid'].value}".encode()


async def connect(path: str, player: Player) -> WebsocketCommunicator:
    socket = FramesChecked(
        application, path, headers=[(b"origin", b"http://testserver"), (b"cookie", player.cookie)]
    )
    assert (await socket.connect())[0]
    player.sockets.append(socket)
    return socket


async def drain(players: Sequence[Player], *, wait: float = 0.001) -> None:
    for player in players:
        for socket in player.sockets:
            while not await socket.receive_nothing(timeout=wait):
                player.received.append((None, await socket.receive_json_from()))


async def play_end_to_end(rng: random.Random, number: int, run_tasks) -> int:
    human_count, computers = seats_for(rng)
    users = await sync_to_async(lambda: [new_player() for _ in range(human_count)])()
    players = []
    for seat, user in enumerate(users):
        client, cookie = await sync_to_async(signed_in)(user)
        players.append(Player(user, seat, client, cookie))
    for player in players:
        await connect("/ws/me/", player)

    await sync_to_async(let_anyone_invite)(*users[1:])
    opponents = [{"user": user.username} for user in users[1:]] + [
        {"ai_level": level} for level in computers
    ]
    response = await sync_to_async(players[0].client.post)(
        "/api/v1/games/", {"kind": "kingscorner", "seats": opponents}, format="json"
    )
    assert response.status_code == 201, response.json()
    game_id = response.json()["id"]
    players[0].received.append((0, response.json()))
    await sync_to_async(accept_invitations)(game_id)
    for player in players:
        await connect(f"/ws/games/{game_id}/", player)
    await sync_to_async(run_tasks)()

    for action in range(MAX_ACTIONS):
        if action % DRAIN_EVERY == 0:
            await drain(players)
        envelopes = []
        for player in players:
            reply = await sync_to_async(player.client.get)(f"/api/v1/games/{game_id}/")
            player.received.append((None, reply.json()))
            envelopes.append(reply.json())
        envelope = envelopes[0]
        if action % LOG_EVERY == 0:
            # Nothing moves between these requests: the worker runs only in run_tasks below.
            for player in players:
                log = await sync_to_async(player.client.get)(f"/api/v1/games/{game_id}/moves/")
                player.received.append((envelope["move_count"], log.json()))
        if envelope["status"] != "active":
            break
        mover = next((p for p in players if p.seat == envelope["to_move"]), None)
        if mover is None:
            await sync_to_async(run_tasks)()
            continue
        move = choose(envelopes[mover.seat], rng)
        reply = await sync_to_async(mover.client.post)(
            f"/api/v1/games/{game_id}/moves/",
            {"expected_version": envelope["version"], "move": move},
            format="json",
        )
        assert reply.status_code == 200, reply.json()
        mover.received.append((None, reply.json()))
        await sync_to_async(run_tasks)()
    else:
        pytest.fail(f"game {number} did not end within {MAX_ACTIONS} actions")

    for player in players:
        log = await sync_to_async(player.client.get)(f"/api/v1/games/{game_id}/moves/")
        player.received.append((None, log.json()))
    await drain(players, wait=0.1)
    for player in players:
        for socket in player.sockets:
            await socket.disconnect()

    game = await sync_to_async(Game.objects.get)(pk=game_id)
    truth = Truth(game, await sync_to_async(states_by_move_count)(game))
    for player in players:
        for at, payload in player.received:
            truth.check(player.seat, payload, at=at)
    return sum(len(player.received) for player in players)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_games_through_the_api_and_sockets_never_show_a_card_one_may_not_see(run_tasks):
    rng = random.Random(20261201)
    checked = 0
    for number in range(GAMES_END_TO_END):
        checked += await play_end_to_end(rng, number, run_tasks)
    assert checked > GAMES_END_TO_END * 20, "every game produced responses and frames to check"
