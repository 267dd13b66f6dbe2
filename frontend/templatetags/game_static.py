"""Where each game's page files are, by convention from its kind, and the page's import map.

A game app serves its page module as `<kind>/page.js` and its stylesheet as `<kind>/page.css`
(in `<app>/static/<kind>/`), its mark on the game cards of the home and About pages as
`<kind>/mark.svg`, and, when it has a rules page, the module that draws that page's diagrams as
`<kind>/rules.js`; the platform finds them by name, never by importing the app. The page module
may import the other modules beside it (`<kind>/board-view.js` as "<kind>/board-view"): every
`.js` file in the folder of a kind's page module is in the import map.

The page's ES modules import one another by bare names ("greycircle/game-client", "circles/page")
that the import map rendered in the page turns into `{% static %}` URLs. With the manifest storage
of production those are the hashed file names, so a browser never combines the modules of two
deploys: a new page imports only new files and an old page only old ones.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from django import template
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from greycircle.games import registry

register = template.Library()

# Modules of the platform itself, by import-map name.
SHARED_MODULES = {
    "greycircle/game-client": "frontend/js/game-client.js",
    "greycircle/clock": "frontend/js/clock.js",
    "greycircle/game-page": "frontend/js/game-page.js",
    "greycircle/game-offers": "frontend/js/game-offers.js",
    "greycircle/replay": "frontend/js/replay.js",
    "greycircle/notifications": "frontend/js/notifications.js",
    "greycircle/rules-diagrams": "frontend/js/rules-diagrams.js",
    "greycircle/dom": "frontend/js/dom.js",
    "greycircle/chat": "frontend/js/chat.js",
    "greycircle/report": "frontend/js/report.js",
}

# JSON in a <script> element: these must not end it or open a comment (as json_script does).
_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


def page_module_name(kind: str) -> str:
    """The import-map name of a kind's page module."""
    return f"{kind}/page"


@register.simple_tag
def page_module(kind: str) -> str:
    """The static path of a kind's page module."""
    return f"{kind}/page.js"


@register.simple_tag
def page_stylesheet(kind: str) -> str:
    """The static path of a kind's page stylesheet."""
    return f"{kind}/page.css"


@register.simple_tag
def mark_image(kind: str) -> str:
    """The static path of a kind's mark; "" for a kind whose app draws none (e.g. one registered
    only by tests), which then gets no image rather than a broken one."""
    path = f"{kind}/mark.svg"
    return path if _static_file_exists(path) else ""


@functools.cache
def _static_file_exists(path: str) -> bool:
    # Static files do not come and go while a process runs: look once, not on every page.
    return finders.find(path) is not None


@functools.cache
def kind_modules(kind: str) -> dict[str, str]:
    """Every ES module beside a kind's page module, by import-map name -> static path; none for a
    kind without a page module (looked up once, like the marks)."""
    found = finders.find(page_module(kind))
    if found is None:
        return {}
    folder = Path(found).parent
    return {
        f"{kind}/{module.stem}": f"{kind}/{module.name}" for module in sorted(folder.glob("*.js"))
    }


@register.simple_tag
def rules_module(kind: str) -> str:
    """The static path of the module that draws the diagrams of a kind's rules page."""
    return f"{kind}/rules.js"


@register.simple_tag
def rules_url(kind: str) -> str:
    """The URL of a kind's rules page; "" for a kind without one (or no such kind)."""
    try:
        game_kind = registry.get(kind)
    except registry.UnknownKind:
        return ""
    return reverse("rules", args=[kind]) if game_kind.rules_template else ""


@register.simple_tag
def kinds_with_rules() -> list[registry.GameKind]:
    """The kinds that have a rules page, for links to them."""
    return [game_kind for game_kind in registry.all_kinds() if game_kind.rules_template]


@register.simple_tag
def leaderboard_link() -> str:
    """The navigation's "Leaderboards": the first kind's leaderboard, whose page has a tab for
    each other kind ("" while no kind is registered)."""
    kinds = registry.all_kinds()
    return reverse("leaderboard", args=[kinds[0].kind]) if kinds else ""


def module_paths() -> dict[str, str]:
    """Every ES module the pages import: import-map name -> static path."""
    paths = dict(SHARED_MODULES)
    for game_kind in registry.all_kinds():
        paths.update(kind_modules(game_kind.kind))
        paths[page_module_name(game_kind.kind)] = page_module(game_kind.kind)
        if game_kind.rules_template:
            paths[f"{game_kind.kind}/rules"] = rules_module(game_kind.kind)
    return paths


def import_map() -> dict[str, dict[str, str]]:
    imports = {}
    for name, path in module_paths().items():
        try:
            imports[name] = static(path)
        except ValueError:
            # Not in the manifest: a kind without a page (e.g. one registered only by tests).
            continue
    return {"imports": imports}


@register.simple_tag
def import_map_script() -> SafeString:
    """The page's <script type="importmap">; it must come before any module script."""
    data = json.dumps(import_map(), indent=2).translate(_SCRIPT_ESCAPES)
    return format_html('<script type="importmap">{}</script>', SafeString(data))
