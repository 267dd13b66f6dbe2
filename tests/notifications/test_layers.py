"""The notifications app builds on the game platform only, never on a game app."""

from __future__ import annotations

import ast
from pathlib import Path

import greycircle.notifications

GAME_APPS = {"circles", "kingscorner", "cirkis"}


def test_notifications_import_no_game_app():
    root = Path(greycircle.notifications.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in GAME_APPS, f"{path.name} imports {name}"
