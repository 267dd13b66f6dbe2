"""The sockets' contract: every frame a test receives validates against its published component.

`FramesChecked` is a `WebsocketCommunicator` that checks each frame it receives against the
component of its stream in the OpenAPI schema (`GameSocketFrame` on `ws/games/{id}/`,
`MeSocketFrame` on `ws/me/`; greycircle.games.frames), with the strict validator the REST
contract tests use, so a consumer test that receives a frame off its schema fails.
"""

from __future__ import annotations

import json
from typing import Any

from channels.testing import WebsocketCommunicator
from drf_spectacular.generators import SchemaGenerator

from greycircle.games import registry
from tests.api.openapi_responses import ComponentValidator

_validators: dict[tuple[Any, ...], ComponentValidator] = {}


def frames_validator() -> ComponentValidator:
    """A validator of the schema `/api/schema/` serves with the kinds registered now (tests
    register their own kinds: the schema is built again when they change)."""
    key = tuple((game_kind.kind, id(game_kind)) for game_kind in registry.all_kinds())
    if key not in _validators:
        schema = SchemaGenerator().get_schema(request=None, public=True)
        _validators[key] = ComponentValidator(schema)
    return _validators[key]


def frame_component(path: str) -> str:
    """The component of the frames the socket at `path` sends."""
    if path.startswith("/ws/games/"):
        return "GameSocketFrame"
    if path.startswith("/ws/me/"):
        return "MeSocketFrame"
    raise AssertionError(f"no frames are published for {path}")


def frame_validate(path: str, frame: Any) -> None:
    """Fail unless `frame` is one the socket at `path` may send."""
    frames_validator().validate_component(frame_component(path), frame)


class FramesChecked(WebsocketCommunicator):
    """A test socket whose every received frame must validate against its stream's component."""

    def __init__(self, application: Any, path: str, **kwargs: Any) -> None:
        super().__init__(application, path, **kwargs)
        self.frames_path = path.partition("?")[0]

    async def receive_from(self, *args: Any, **kwargs: Any) -> str:
        # No default of our own: the communicators' wait is set for a busy machine
        # (tests/conftest.py).
        text = await super().receive_from(*args, **kwargs)
        frame_validate(self.frames_path, json.loads(text))
        return text
