"""TypeScript (`make lint`) checks the modules the browser loads, resolving imports as it does.

The page modules import each other by the names of the import map (game_static); tsconfig.json's
`paths` must turn each name into the same file, and its `include` must take in every module the
apps serve, or tsc would check a different program than the one the pages run (or none of a new
module). Read without node: `make test` does not need it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders

from frontend.templatetags.game_static import module_paths

ROOT = Path(settings.BASE_DIR)
# tsconfig.json is JSON with whole-line // comments (what tsc allows, and all it uses).
LINE_COMMENT = re.compile(r"^\s*//.*$", re.M)


def tsconfig() -> dict:
    return json.loads(LINE_COMMENT.sub("", (ROOT / "tsconfig.json").read_text()))


def resolve(name: str, paths: dict[str, list[str]]) -> Path | None:
    """The file tsc reads for the bare specifier `name`, by `paths` ("prefix/*" patterns)."""
    for pattern, targets in paths.items():
        prefix, star, suffix = pattern.partition("*")
        if star and name.startswith(prefix) and name.endswith(suffix):
            matched = name[len(prefix) : len(name) - len(suffix)]
            return (ROOT / targets[0].replace("*", matched)).resolve()
        if not star and name == pattern:
            return (ROOT / targets[0]).resolve()
    return None


def served_modules() -> set[Path]:
    """Every .js file the project's own apps serve as static files."""
    return {
        path.resolve()
        for path in ROOT.glob("*/static/**/*.js")
        if not {".venv", "node_modules", "staticfiles"} & set(path.relative_to(ROOT).parts)
    }


def test_every_import_map_name_resolves_to_the_file_the_page_loads():
    paths = tsconfig()["compilerOptions"]["paths"]
    names = module_paths()
    assert {"greycircle/game-page", "circles/page", "cirkis/board-view"} <= set(names)
    for name, static_path in names.items():
        served = finders.find(static_path)
        assert served is not None, static_path
        assert resolve(name, paths) == Path(served).resolve(), name


def test_typescript_checks_every_module_the_apps_serve():
    included = {path.resolve() for pattern in tsconfig()["include"] for path in ROOT.glob(pattern)}
    modules = served_modules()
    assert len(modules) >= 17  # the platform's and the three kinds' modules
    assert modules <= included, sorted(str(p.relative_to(ROOT)) for p in modules - included)


def test_typescript_checks_strictly_and_emits_nothing():
    options = tsconfig()["compilerOptions"]
    assert options["checkJs"] is True
    assert options["strict"] is True
    assert options["noEmit"] is True


def test_the_npm_tools_are_pinned_exactly_and_upgrading_names_the_pins():
    package = json.loads((ROOT / "package.json").read_text())
    locked = json.loads((ROOT / "package-lock.json").read_text())["packages"]
    assert package["private"] is True
    assert "dependencies" not in package  # development tools only
    pins = package["devDependencies"]
    assert set(pins) == {"typescript", "openapi-typescript"}
    heading = re.search(r"^## npm: (.+)$", (ROOT / "UPGRADING.md").read_text(), re.M)
    assert heading is not None, "UPGRADING.md has a section for the npm tools"
    for name, version in pins.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} is pinned exactly"
        assert locked[f"node_modules/{name}"]["version"] == version, name
        assert f"{name}@{version}" in heading[1].split(", "), (
            f"package.json pins {name}@{version}: re-check its UPGRADING.md entry, then its heading"
        )
