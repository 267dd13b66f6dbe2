"""The mobile developer's experience: a client generated from `/api/schema/` plays every game.

openapi-python-client (a pinned dev dependency) generates a Python client from the schema the
running app serves; the test signs up through allauth headless and plays one whole game of each
kind against the easy computer through that client's typed models only: the typed create request,
the kind's envelope class, and a typed move request built from the first of `legal_moves`. A
schema change that breaks generated clients (a generator warning, a shape the client cannot parse,
a move it cannot send) fails here.

The allauth headless endpoints are not in our schema (allauth describes them in its own
specification), so signing up uses the generated client's underlying httpx client.

No server process: the generated client's httpx client talks to Django's WSGI handler through
`httpx.WSGITransport`, and the computer's queued turns run in `run_tasks`.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from django.core.handlers.wsgi import WSGIHandler

from tests.api.openapi_responses import ResponseValidator

# The worker in `run_tasks` closes the connection between tasks, so no test transaction.
pytestmark = pytest.mark.django_db(transaction=True)

PACKAGE = "greycircle_api_client"
BASE_URL = "http://testserver"
PASSWORD = "a long enough pass phrase 7"
# More requests than any game between a player and the easy computer needs.
MAX_STEPS = 1000


@pytest.fixture(scope="module")
def wsgi_app() -> WSGIHandler:
    return WSGIHandler()


@pytest.fixture(scope="module")
def served_schema(wsgi_app, django_db_setup, django_db_blocker) -> dict[str, Any]:
    with django_db_blocker.unblock(), _http(wsgi_app) as http:
        response = http.get("/api/schema/", params={"format": "json"})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def responses_validated(served_schema) -> ResponseValidator:
    """Checks every JSON response the generated client receives against the schema."""
    return ResponseValidator(served_schema)


@pytest.fixture(scope="module")
def api(served_schema, tmp_path_factory) -> Iterator[ModuleType]:
    """The client generated from the live `/api/schema/`, imported as a package."""
    root = tmp_path_factory.mktemp("generated_client")
    schema = root / "schema.json"
    schema.write_text(json.dumps(served_schema))
    config = root / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter: ruff need not be on PATH
    generated = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(schema),
            "--output-path",
            str(root / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "Warning" not in output, f"the generator left pieces out:\n{output}"

    sys.path.insert(0, str(root))
    try:
        yield _import_all(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name.partition(".")[0] == PACKAGE]:
            del sys.modules[name]


def _import_all(package: str) -> ModuleType:
    """The package, with every module of it imported (so each one at least imports)."""
    module = importlib.import_module(package)
    for path in sorted(Path(module.__file__).parent.rglob("*.py")):
        relative = path.relative_to(Path(module.__file__).parent).with_suffix("")
        parts = [part for part in relative.parts if part != "__init__"]
        importlib.import_module(".".join([package, *parts]))
    return module


def _read(response: httpx.Response) -> None:
    response.read()  # a response hook sees the response before its body is read


def _http(app: WSGIHandler) -> httpx.Client:
    return httpx.Client(base_url=BASE_URL, transport=httpx.WSGITransport(app=app))


@pytest.fixture
def signed_up(api, wsgi_app, responses_validated) -> Callable[[str], Any]:
    """Sign up through allauth headless; returns the generated client with the session token,
    whose every response under /api/ is validated against the schema."""

    def validate(response: httpx.Response) -> None:
        path = response.request.url.path
        if not path.startswith("/api/v1/") or not response.content:
            return
        responses_validated.validate(
            method=response.request.method,
            path=path,
            status=response.status_code,
            body=response.json(),
        )

    def sign_up(username: str) -> Any:
        transport = {"transport": httpx.WSGITransport(app=wsgi_app)}
        validated = {**transport, "event_hooks": {"response": [_read, validate]}}
        anonymous = api.Client(base_url=BASE_URL, httpx_args=transport)
        # Not in our schema: allauth headless's app endpoint, through the client's httpx client.
        response = anonymous.get_httpx_client().post(
            "/_allauth/app/v1/auth/signup",
            json={"username": username, "email": f"{username}@example.com", "password": PASSWORD},
        )
        assert response.status_code == 200, response.text
        token = response.json()["meta"]["session_token"]
        return api.AuthenticatedClient(
            base_url=BASE_URL,
            token=token,
            prefix="",
            auth_header_name="X-Session-Token",
            httpx_args=validated,
            raise_on_unexpected_status=True,
        )

    return sign_up


def _create_request(api: ModuleType, kind: str) -> Any:
    """The kind's typed create request: you against the easy computer."""
    m = api.models
    if kind == "circles":
        return m.CirclesGameCreateRequest(
            kind=m.CirclesKindEnum.CIRCLES,
            seats=[m.CirclesNewSeatRequest(ai_level=m.CirclesAiLevelEnum.EASY)],
        )
    if kind == "kingscorner":
        return m.KingsCornerGameCreateRequest(
            kind=m.KingsCornerKindEnum.KINGSCORNER,
            seats=[m.KingsCornerNewSeatRequest(ai_level=m.KingsCornerAiLevelEnum.EASY)],
            options=m.KingsCornerOptionsRequest(),
        )
    return m.CirKisGameCreateRequest(
        kind=m.CirKisKindEnum.CIRKIS,
        seats=[m.CirKisNewSeatRequest(ai_level=m.CirKisAiLevelEnum.EASY)],
        options=m.CirKisOptionsRequest(center_ring=True),
    )


def _move_request(api: ModuleType, move: Any) -> Any:
    """The typed request for a legal move the envelope listed, field by field."""
    m = api.models
    match move:
        case m.CirclesMove():
            return m.CirclesMoveRequest(square=move.square)
        case m.CirKisMove():
            return m.CirKisMoveRequest(piece=move.piece, fields=move.fields)
        case m.KingsCornerPlayCard():
            return m.KingsCornerPlayCardRequest(action=move.action, card=move.card, to=move.to)
        case m.KingsCornerMovePile():
            return m.KingsCornerMovePileRequest(action=move.action, from_=move.from_, to=move.to)
        case m.KingsCornerEndTurn():
            return m.KingsCornerEndTurnRequest(action=move.action)
    raise AssertionError(f"not a move the client knows: {move!r}")


# Each kind's classes in the generated client: `CirclesGame`, `CirclesMoveLogEntry`, ...
PREFIXES = {"circles": "Circles", "kingscorner": "KingsCorner", "cirkis": "CirKis"}


@pytest.mark.parametrize("kind", ["circles", "kingscorner", "cirkis"])
def test_a_generated_client_plays_a_whole_game_against_the_easy_computer(
    kind, api, signed_up, run_tasks, settings, responses_validated
):
    settings.GAMES_AI_BUDGET_MS = 5
    games = importlib.import_module(f"{PACKAGE}.api.v1")
    prefix = PREFIXES[kind]
    envelope_class = getattr(api.models, f"{prefix}Game")
    client = signed_up(f"mobile_{kind}")

    me = importlib.import_module(f"{PACKAGE}.api.v1.v1_me_retrieve").sync(client=client)
    assert isinstance(me, api.models.MeWithSanctions)
    assert me.username == f"mobile_{kind}"
    assert me.sanctions == []

    created = games.v1_games_create.sync_detailed(client=client, body=_create_request(api, kind))
    assert created.status_code == 201, created.content
    game = created.parsed
    assert isinstance(game, envelope_class)
    assert game.you == 0
    game_id = game.id
    moves_played = 0

    for _ in range(MAX_STEPS):
        fetched = games.v1_games_retrieve.sync_detailed(id=game_id, client=client)
        assert fetched.status_code == 200, fetched.content
        game = fetched.parsed
        assert isinstance(game, envelope_class)
        if game.status != api.models.GameStatusEnum.ACTIVE:
            break
        if game.to_move == game.you:
            assert game.legal_moves, "it is my turn but I have no move"
            body = api.models.MoveRequestRequest(
                expected_version=game.version, move=_move_request(api, game.legal_moves[0])
            )
            played = games.v1_games_moves_create.sync_detailed(id=game_id, client=client, body=body)
            assert played.status_code == 200, played.content
            assert isinstance(played.parsed, envelope_class)
            assert played.parsed.version > game.version
            moves_played += 1
        else:
            assert not game.legal_moves, "legal moves are only for the seat to move"
            run_tasks()
            after = games.v1_games_retrieve.sync(id=game_id, client=client)
            assert after.version > game.version, "the computer's queued turn did not run"
    else:
        pytest.fail(f"the {kind} game did not end within {MAX_STEPS} steps")

    assert game.status == api.models.GameStatusEnum.FINISHED
    assert game.outcome is not None
    assert moves_played > 0

    log = games.v1_games_moves_list.sync_detailed(id=game_id, client=client)
    assert log.status_code == 200, log.content
    assert len(log.parsed) == game.move_count
    assert {type(entry).__name__.removesuffix("LogEntry") for entry in log.parsed} <= {
        f"{prefix}{shape}" for shape in ("Move", "PlayCard", "MovePile", "EndTurn")
    }

    # Polling cheaply: an unchanged game is 304, the log after a number, the lists changed since.
    unchanged = games.v1_games_retrieve.sync_detailed(
        id=game_id, client=client, if_none_match=fetched.headers["etag"]
    )
    assert unchanged.status_code == 304
    newer = games.v1_games_moves_list.sync(id=game_id, client=client, after=game.move_count - 1)
    assert [entry.number for entry in newer] == [game.move_count]
    changed = games.v1_games_list.sync(client=client, changed_since=game.updated_at)
    assert [listed.id for listed in changed.results] == [game_id]

    # The finished game's replay, typed per kind: a step per move and the start.
    replay = games.v1_games_replay_retrieve.sync_detailed(id=game_id, client=client)
    assert replay.status_code == 200, replay.content
    assert isinstance(replay.parsed, getattr(api.models, f"{prefix}GameReplay"))
    steps = replay.parsed.steps
    assert len(steps) == game.move_count + 1
    assert all(isinstance(step, getattr(api.models, f"{prefix}ReplayStep")) for step in steps)
    assert steps[0].move is None
    assert isinstance(steps[-1].state, getattr(api.models, f"{prefix}State"))
    if kind == "circles":
        analysis = games.v1_games_analysis_create.sync_detailed(id=game_id, client=client)
        assert analysis.status_code == 200, analysis.content
        assert isinstance(analysis.parsed, api.models.CirclesGameAnalysis)
        assert analysis.parsed.total == game.move_count
    # Every JSON response above matched the schema strictly (`responses_validated`).
    assert responses_validated.checked > moves_played
