"""The game page's ES modules in production: collected by the manifest storage, imported by name.

collectstatic runs with the production storage into a temporary STATIC_ROOT; the game page's
import map must then point at the hashed files, and every module WhiteNoise serves may import
only names the map defines, so one deploy's page never loads another deploy's modules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from frontend.templatetags.game_static import module_paths
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec, game_create

KINDS = ("circles", "cirkis", "kingscorner")
IMPORT_MAP = re.compile(r'<script type="importmap">(.*?)</script>', re.S)
HASHED = re.compile(r"^/static/(?P<path>.+)\.[0-9a-f]{12}\.(?P<ext>js|css)$")
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
LINE_COMMENT = re.compile(r"^\s*//.*$", re.M)
# import x from "a"; import { x } from "a"; import "a"; export { x } from "a"; import("a").
STATIC_IMPORT = re.compile(
    r"""(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["']([^"']+)["']""", re.M
)
DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*(["'`])(.*?)\1\s*\)""", re.S)


def imports_of(source: str) -> tuple[set[str], set[str]]:
    """A module's static specifiers and its dynamic import() specifiers (template literals too)."""
    code = LINE_COMMENT.sub("", BLOCK_COMMENT.sub("", source))
    return set(STATIC_IMPORT.findall(code)), {spec for _, spec in DYNAMIC_IMPORT.findall(code)}


def specifier_pattern(template: str) -> re.Pattern[str]:
    """`${kind}/page` -> what it can name: any one path segment in place of each `${...}`."""
    return re.compile("[^/]+".join(re.escape(part) for part in re.split(r"\$\{[^}]*\}", template)))


def test_imports_are_read_from_every_form_of_import_statement():
    source = """
    // import { no } from "commented-out";
    import { ApiError, GameClient } from "greycircle/game-client";
    import * as words from 'greycircle/words';
    import "greycircle/side-effect";
    export { cardText } from "kingscorner/page";
    const svg = "http://www.w3.org/2000/svg";
    const module = await import(`${kind}/page`);
    const other = import("circles/page");
    """
    static, dynamic = imports_of(source)
    assert static == {
        "greycircle/game-client",
        "greycircle/words",
        "greycircle/side-effect",
        "kingscorner/page",
    }
    assert dynamic == {"${kind}/page", "circles/page"}
    assert specifier_pattern("${kind}/page").fullmatch("cirkis/page")
    assert not specifier_pattern("${kind}/page").fullmatch("a/b/page")


def test_every_module_beside_a_kinds_page_module_is_in_the_map_by_its_kinds_name():
    paths = module_paths()
    for kind in KINDS:
        folder = Path(settings.BASE_DIR) / kind / "static" / kind
        beside = {
            f"{kind}/{module.stem}": f"{kind}/{module.name}" for module in folder.glob("*.js")
        }
        assert beside.items() <= paths.items(), kind
    assert paths["cirkis/board-view"] == "cirkis/board-view.js"
    assert paths["cirkis/board-input"] == "cirkis/board-input.js"


@pytest.fixture(scope="module")
def production_static(tmp_path_factory) -> Iterator[Path]:
    """collectstatic with the production storage, and the site serving only what it collected."""
    root = tmp_path_factory.mktemp("staticfiles")
    with override_settings(
        DEBUG=False,
        STATIC_ROOT=root,
        STORAGES={
            "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
            "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
        },
        WHITENOISE_USE_FINDERS=False,
        WHITENOISE_AUTOREFRESH=False,
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
        yield root


@pytest.fixture
def game(alice) -> Game:
    return game_create(creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")])


def served(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return body.decode()


@pytest.mark.django_db
def test_the_game_page_imports_only_hashed_modules_by_their_import_map_names(
    production_static, client, alice, game, tictactoe
):
    client.force_login(alice)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    match = IMPORT_MAP.search(html)
    assert match is not None
    assert html.index('<script type="importmap">') < html.index('<script type="module"')
    imports = json.loads(match.group(1))["imports"]

    expected = {"greycircle/game-client", "greycircle/game-page", "greycircle/dom"}
    expected |= {f"{k}/page" for k in KINDS}
    assert expected <= set(imports)
    assert "tictactoe/page" not in imports, "a kind without a page module is left out"
    manifest = json.loads((production_static / "staticfiles.json").read_text())["paths"]
    for name, url in imports.items():
        hashed = HASHED.match(url)
        assert hashed is not None, f"{name} -> {url} is not a hashed name"
        assert manifest[f"{hashed['path']}.{hashed['ext']}"] == url.removeprefix("/static/")

    # What the page loads directly is hashed too, and the same URLs the map names.
    assert f'<script type="module" src="{imports["greycircle/game-page"]}">' in html
    assert f'<link rel="modulepreload" href="{imports["circles/page"]}">' in html
    assert f'<link rel="modulepreload" href="{imports["greycircle/game-client"]}">' in html
    stylesheets = re.findall(r'<link rel="stylesheet" href="([^"]+)">', html)
    assert stylesheets
    assert all(HASHED.match(url) for url in stylesheets)
    assert any("circles/page." in url for url in stylesheets)

    # Every module, as served, imports only names of the map: no relative or absolute paths,
    # which would load unhashed (and so possibly another deploy's) files.
    dynamic_names = set()
    for name, url in imports.items():
        static, dynamic = imports_of(served(client, url))
        assert static <= set(imports), f"{name} imports {static - set(imports)}"
        for specifier in dynamic:
            if "${" in specifier:
                pattern = specifier_pattern(specifier)
                dynamic_names |= {n for n in imports if pattern.fullmatch(n)}
            else:
                assert specifier in imports, f"{name} imports {specifier}"
    # game-page.js imports the kind's module by name: each kind's is in the map.
    assert {f"{k}/page" for k in KINDS} <= dynamic_names
