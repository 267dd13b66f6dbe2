"""The installable site: the web app manifest, the service worker and the page it shows offline.

The service worker is served from the site's root (/sw.js), not from /static/, because a worker
controls only the paths under its own URL: at the root its scope is the whole site. Its source is
a template (frontend/sw.js) so that it names the static files it keeps by their URLs of this
deploy (hashed in production); a deploy that changes one changes the worker's bytes, and the
browser installs the new worker, which drops the old deploy's cache.
"""

from __future__ import annotations

import hashlib
import json

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse

from frontend.templatetags.pwa import PWA_COLOURS

# What the worker keeps for when the network is gone: the offline page and what it loads (the
# stylesheets of frontend/base.html and the module that brings the page back).
OFFLINE_ASSETS = (
    "frontend/site.css",
    "frontend/forms.css",
    "frontend/lists.css",
    "frontend/logo.svg",
    "frontend/js/pwa.js",
)


def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest (W3C Web Application Manifest), linked from every page."""
    icons = [
        {"src": static("frontend/icons/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        {"src": static("frontend/icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("frontend/icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": static("frontend/icons/maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ]
    document = {
        "id": "/",
        "name": "Grey Circle Games",
        "short_name": "Grey Circle",
        "description": "Circles, King's Corner and CirKis: slow games with friends and computers.",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": PWA_COLOURS["theme"],
        "background_color": PWA_COLOURS["background"],
        "icons": icons,
    }
    return JsonResponse(document, content_type="application/manifest+json")


def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker (frontend/sw.js), at the root so that its scope is the whole site."""
    precache = [reverse("offline"), *(static(path) for path in OFFLINE_ASSETS)]
    icons = {
        "icon": static("frontend/icons/icon-192.png"),
        "badge": static("frontend/icons/badge-96.png"),
    }
    # A new deploy's static URLs (hashed) make a new cache; the template's own edits change the
    # worker's bytes, which is what makes the browser install it.
    version = hashlib.sha256(json.dumps([precache, icons]).encode()).hexdigest()[:12]
    source = render_to_string(
        "frontend/sw.js",
        {
            "precache": json.dumps(precache),
            "offline_url": reverse("offline"),
            "icons": json.dumps(icons),
            "version": version,
        },
    )
    response = HttpResponse(source, content_type="text/javascript; charset=utf-8")
    # The browser checks for a new worker on navigations; it must ask the server, not a cache.
    response["Cache-Control"] = "no-cache"
    return response


def offline(request: HttpRequest) -> HttpResponse:
    """The page the service worker shows for a page it cannot fetch. It is kept in the browser's
    cache, so it is drawn as for a visitor who is not signed in: no name, no token, no messages."""
    return render(request, "frontend/offline.html", {"user": AnonymousUser(), "messages": ()})
