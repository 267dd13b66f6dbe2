"""The installable site (frontend.pwa_views): the manifest, the service worker, the offline page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import get_template

from frontend.pwa_views import OFFLINE_ASSETS

pytestmark = pytest.mark.django_db

STATIC_URL = re.compile(r"^/static/(?P<path>.+)$")


def static_file(url: str) -> str | None:
    match = STATIC_URL.match(url)
    return finders.find(match["path"]) if match else None


def test_every_page_links_the_manifest_its_colour_and_the_home_screen_icon(client):
    html = client.get("/").content.decode()

    assert '<link rel="manifest" href="/manifest.webmanifest">' in html
    assert '<meta name="theme-color" content="#ffffff">' in html
    assert (
        '<link rel="apple-touch-icon" href="/static/frontend/icons/apple-touch-icon.png">' in html
    )
    assert '<script type="module" src="/static/frontend/js/pwa.js"></script>' in html
    assert static_file("/static/frontend/icons/apple-touch-icon.png")


def test_the_manifest_is_json_naming_the_site_its_scope_and_icons_that_exist(client):
    response = client.get("/manifest.webmanifest")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == "Grey Circle Games"
    assert manifest["short_name"] == "Grey Circle"
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    # The palette of site.css: the header's white, the page's grey.
    assert (manifest["theme_color"], manifest["background_color"]) == ("#ffffff", "#f6f7f8")
    icons = {
        (icon["sizes"], icon["type"], icon.get("purpose", "any")) for icon in manifest["icons"]
    }
    assert icons == {
        ("any", "image/svg+xml", "any"),
        ("192x192", "image/png", "any"),
        ("512x512", "image/png", "any"),
        ("512x512", "image/png", "maskable"),
    }
    for icon in manifest["icons"]:
        path = static_file(icon["src"])
        assert path, icon["src"]
        if icon["type"] == "image/png":
            with open(path, "rb") as png:
                header = png.read(24)
            width, height = int.from_bytes(header[16:20]), int.from_bytes(header[20:24])
            assert header[:8] == b"\x89PNG\r\n\x1a\n"
            assert f"{width}x{height}" == icon["sizes"]


def test_the_service_worker_is_served_from_the_root_never_from_a_cache(client):
    response = client.get("/sw.js")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Cache-Control"] == "no-cache"
    # At the root, its scope may be the whole site without a Service-Worker-Allowed header.
    assert not response.has_header("Service-Worker-Allowed")
    source = response.content.decode()
    assert "{{" not in source
    assert "{%" not in source


def test_the_service_worker_keeps_the_offline_page_and_the_files_it_loads(client):
    source = client.get("/sw.js").content.decode()

    precache = json.loads(
        json.loads(re.search(r'const PRECACHE = JSON\.parse\(("[^"]*")\)', source)[1])
    )
    assert precache[0] == "/offline/"
    assert precache[1:] == [f"/static/{path}" for path in OFFLINE_ASSETS]
    assert all(static_file(url) for url in precache[1:])
    # What the offline page loads is kept, so it shows as itself without a network.
    offline = client.get("/offline/").content.decode()
    for url in precache[1:]:
        assert f'"{url}"' in offline, url
    icons = json.loads(json.loads(re.search(r'const ICONS = JSON\.parse\(("[^"]*")\)', source)[1]))
    assert all(static_file(url) for url in icons.values())
    assert re.search(r"const CACHE = `\$\{CACHE_PREFIX\}[0-9a-f]{12}`;", source)


def test_the_offline_page_says_so_in_the_sites_layout(client):
    response = client.get("/offline/")

    assert response.status_code == 200
    html = response.content.decode()
    assert '<h1 class="page-title" id="offline-title">You are offline</h1>' in html
    assert "It will come back by itself once you are online again." in html
    assert '<header class="site-header">' in html


def test_the_offline_page_is_drawn_for_nobody_even_when_a_player_asks(client, alice):
    # The worker keeps it in the browser's cache: no name, no token, no message of the user's.
    client.force_login(alice)
    client.get("/settings/")  # sets the CSRF cookie a form would carry

    html = client.get("/offline/").content.decode()

    assert "alice" not in html
    assert "csrfmiddlewaretoken" not in html
    assert 'href="/accounts/login/"' in html
    assert 'id="unread-badge"' not in html


def test_the_settings_page_holds_this_devices_notifications_for_its_script_to_offer(client, alice):
    client.force_login(alice)

    html = client.get("/settings/").content.decode()

    # Hidden until push-device.js finds the Push API and notifications not blocked.
    assert '<section class="fieldset push-device" id="push-device"' in html
    assert 'aria-labelledby="push-device-title" hidden>' in html
    assert ">Notify me on this device</button>" in html
    assert ">Stop notifying this device</button>" in html
    assert '<script type="module" src="/static/frontend/js/push-device.js"></script>' in html


def test_typescript_checks_the_service_worker_as_a_worker():
    # The worker has a worker's globals, not the DOM's: its own tsconfig, which `make lint` runs.
    root = Path(settings.BASE_DIR)
    config = json.loads(
        re.sub(r"^\s*//.*$", "", (root / "tsconfig.sw.json").read_text(), flags=re.M)
    )
    worker = Path(get_template("frontend/sw.js").origin.name).resolve()
    assert [(root / path).resolve() for path in config["include"]] == [worker]
    assert "webworker" in config["compilerOptions"]["lib"]
    assert "dom" not in config["compilerOptions"]["lib"]
    assert "tsc --noEmit -p tsconfig.sw.json" in (root / "Makefile").read_text()
