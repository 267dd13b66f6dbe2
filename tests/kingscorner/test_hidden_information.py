"""No player ever receives a card they may not see: 50 random 3-6 seat games through the real API.

Scripted players (through the REST API) and computer players (through the task worker) play to
the end. Every response and every WebSocket frame each user received is checked against the true
state at that moment (replayed from the seed and the log): no card of another hand, no card of
the stock, no seed. Once a game is over the hands are shown to all, but the stock never is.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from greycircle.asgi import application
from greycircle.games.models import Game
from kingscorner.cards import card_name
from kingscorner.rules import RULES
from tests.factories import UserFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]

GAMES = 50
MAX_ACTIONS = 400
# Sockets buffer up to 100 messages; a few arrive per action.
DRAIN_EVERY = 10
CARD_TOKEN = re.compile(r'"([A2-9TJQK][CDHS])"')


def cards_in(payload: Any) -> set[str]:
    return set(CARD_TOKEN.findall(json.dumps(payload)))


@dataclass
class Player:
    user: Any
    seat: int
    client: APIClient
    cookie: bytes
    received: list[Any] = field(default_factory=list)
    sockets: list[WebsocketCommunicator] = field(default_factory=list)


def signed_in(user) -> tuple[APIClient, bytes]:
    client = APIClient()
    client.force_login(user)
    return client, f"sessionid={client.cookies['sessionid'].value}".encode()


def states_by_move_count(game: Game) -> list[Any]:
    """The true state after 0, 1, 2, ... moves, replayed from the seed and the log."""
    state = RULES.new_game(game.seats.count(), seed=game.seed, options=game.options)
    states = [state]
    for data in game.moves.order_by("number").values_list("data", flat=True):
        state = RULES.play(state, RULES.parse_move(data))
        states.append(state)
    return states


def hidden_from(state: Any, seat: int) -> set[str]:
    hidden = {card_name(card) for card in state.stock}
    if not state.over:
        for other, hand in enumerate(state.hands):
            if other != seat:
                hidden |= {card_name(card) for card in hand}
    return hidden


def check_received(player: Player, game: Game, states: list[Any]) -> int:
    checked = 0
    seen_by_seat: set[str] = set()
    for state in states:
        seen_by_seat |= {card_name(card) for pile in state.piles for card in pile}
        seen_by_seat |= {card_name(card) for card in state.hands[player.seat]}
    if states[-1].over:
        seen_by_seat |= {card_name(card) for hand in states[-1].hands for card in hand}
    for payload in player.received:
        text = json.dumps(payload)
        assert str(game.seed) not in text, "the seed reached a player"
        assert '"seed"' not in text
        envelope = payload.get("envelope", payload) if isinstance(payload, dict) else None
        if isinstance(envelope, dict) and "move_count" in envelope and envelope.get("state"):
            state = states[envelope["move_count"]]
            leaked = cards_in(payload) & hidden_from(state, player.seat)
            assert not leaked, f"seat {player.seat} saw {leaked} at move {envelope['move_count']}"
        else:
            # Move logs and notifications: only cards this seat has seen on the table or in hand.
            leaked = cards_in(payload) - seen_by_seat
            assert not leaked, f"seat {player.seat} saw {leaked} in {payload}"
        checked += 1
    return checked


async def drain(players: list[Player], *, wait: float = 0.001) -> None:
    for player in players:
        for socket in player.sockets:
            while not await socket.receive_nothing(timeout=wait):
                player.received.append(await socket.receive_json_from())


def choose(envelope: dict, rng: random.Random) -> dict:
    plays = [move for move in envelope["legal_moves"] if move["action"] != "end_turn"]
    if plays and rng.random() < 0.85:
        return rng.choice(plays)
    return {"action": "end_turn"}


async def play_one_game(rng: random.Random, number: int, run_tasks) -> int:
    seat_count = rng.randint(3, 6)
    human_count = rng.randint(1, min(3, seat_count))
    users = await sync_to_async(lambda: [UserFactory() for _ in range(human_count)])()
    players = []
    for seat, user in enumerate(users):
        client, cookie = await sync_to_async(signed_in)(user)
        players.append(Player(user, seat, client, cookie))
    for player in players:
        me = WebsocketCommunicator(
            application,
            "/ws/me/",
            headers=[(b"origin", b"http://testserver"), (b"cookie", player.cookie)],
        )
        assert (await me.connect())[0]
        player.sockets.append(me)

    opponents = [{"user": user.username} for user in users[1:]] + [
        {"ai_level": rng.choice(["easy", "normal"])} for _ in range(seat_count - human_count)
    ]
    response = await sync_to_async(players[0].client.post)(
        "/api/v1/games/", {"kind": "kingscorner", "seats": opponents}, format="json"
    )
    assert response.status_code == 201, response.json()
    game_id = response.json()["id"]
    players[0].received.append(response.json())
    for player in players:
        socket = WebsocketCommunicator(
            application,
            f"/ws/games/{game_id}/",
            headers=[(b"origin", b"http://testserver"), (b"cookie", player.cookie)],
        )
        assert (await socket.connect())[0]
        player.sockets.append(socket)
    await sync_to_async(run_tasks)()

    for action in range(MAX_ACTIONS):
        if action % DRAIN_EVERY == 0:
            await drain(players)
        envelopes = []
        for player in players:
            reply = await sync_to_async(player.client.get)(f"/api/v1/games/{game_id}/")
            player.received.append(reply.json())
            envelopes.append(reply.json())
        envelope = envelopes[0]
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
        mover.received.append(reply.json())
        await sync_to_async(run_tasks)()
    else:
        pytest.fail(f"game {number} did not end within {MAX_ACTIONS} actions")

    for player in players:
        log = await sync_to_async(player.client.get)(f"/api/v1/games/{game_id}/moves/")
        player.received.append(log.json())
    await drain(players, wait=0.1)
    for player in players:
        for socket in player.sockets:
            await socket.disconnect()

    game = await sync_to_async(Game.objects.get)(pk=game_id)
    states = await sync_to_async(states_by_move_count)(game)
    checked = 0
    for player in players:
        checked += await sync_to_async(check_received)(player, game, states)
    return checked


async def test_fifty_games_never_show_a_player_a_card_they_may_not_see(run_tasks):
    rng = random.Random(20261130)
    checked = 0
    for number in range(GAMES):
        checked += await play_one_game(rng, number, run_tasks)
    assert checked > GAMES * 20, "every game produced responses and frames to check"
