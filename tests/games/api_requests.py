"""Requests to the games REST API that the API tests make again and again."""


def create(client, seats, **extra):
    return client.post(
        "/api/v1/games/", {"kind": "tictactoe", "seats": seats, **extra}, format="json"
    )


def move(client, game_id, cell, version, **headers):
    return client.post(
        f"/api/v1/games/{game_id}/moves/",
        {"expected_version": version, "move": {"cell": cell}},
        format="json",
        headers=headers,
    )
