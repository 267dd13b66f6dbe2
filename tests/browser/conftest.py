"""Browser tests: Debian's Chromium, driven by Playwright, against the real ASGI app on Daphne.

Fixtures
- `asgi_live_server` (module): Daphne serving `greycircle.asgi:application` (HTTP, WebSockets
  and static files) on a free port of 127.0.0.1, in a child process, on the test database.
- `browser` (module): Chromium from /usr/bin/chromium (or $CHROMIUM), headless.
- `new_page` (function): a factory of pages, each in a fresh browser context (its own cookies,
  so its own signed-in user), resolving relative URLs against the live server. `page` is one.
- `log_in`: signs a page in (with a session cookie) and opens the home page.

Tests that use them need `@pytest.mark.django_db(transaction=True)`: the server is another
process and only sees committed data. Mark them `@pytest.mark.browser`.

Playwright's sync API marks its event loop as running in this thread for as long as Playwright
is started (see playwright/_impl/_greenlets.py). Django then takes every ORM call of the test
for async code and refuses it, and pytest-asyncio could not run a loop of its own. So
Playwright lives for one test module at a time, with DJANGO_ALLOW_ASYNC_UNSAFE set only
meanwhile (the test code is plain sync code; nothing else runs on that loop). Test modules
here hold sync tests only.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from channels.layers import channel_layers
from channels.testing.live import make_application
from daphne.testing import DaphneProcess
from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.db.models import Q
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from accounts.models import User
from greycircle.runtime.worker import background_worker_start

HOST = "127.0.0.1"
NEW_ACCOUNT_PASSWORD = "a-long-pass-phrase"
SERVER_START_TIMEOUT = 60.0
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# How long Playwright waits for an element, a navigation or an `expect` assertion before it fails
# the test. A wait ends as soon as what it waits for happens, so this only has to be long enough for
# a machine whose cores are all busy (a page took over 5 s to connect its socket there) while a page
# that never gets there still fails. How fast the site is belongs to the benchmarks (bench/).
DEFAULT_TIMEOUT_MS = 30_000
FAILURE_SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-results"


@dataclass(frozen=True)
class LiveServer:
    host: str
    port: int

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def __str__(self) -> str:
        return self.url


def _serve_setup(names: dict[str, str]) -> None:
    """Run in the server process before it serves: connect to the test databases by name and
    run the task worker in this process, as `manage.py serve` does (computer turns then publish
    to the sockets this process holds, with or without Redis)."""
    for alias, name in names.items():
        settings.DATABASES[alias]["NAME"] = name
        connections[alias].settings_dict["NAME"] = name
    # The fork copied objects whose threads and event loops stayed in the test process: the
    # executor that runs sync code for async consumers (its one thread is gone, so work sent to it
    # would never run) and the channel layer (its queues belong to loops of earlier async tests).
    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    channel_layers.backends = {}
    background_worker_start()


# Per module, not per session: the server runs a task worker, which must not go on claiming the
# queued tasks of the tests that come after the browser tests.
@pytest.fixture(scope="module")
def asgi_live_server(django_db_setup, django_db_blocker) -> Iterator[LiveServer]:
    """Daphne serving the site in a child process, on the test database, for one test module.

    Like channels.testing.ChannelsLiveServerTestCase: DaphneProcess forks this process, so the
    child has the test settings (pytest-django's e-mail backend, DEBUG off, the test database
    names); it listens on port 0 and reports the port it got. The child needs a database it
    can open itself: a file for SQLite (settings set DATABASES["default"]["TEST"]["NAME"]), or the
    test database of the PostgreSQL server. Static files are served as `runserver` would.

    The child has its own in-memory channel layer and cache, unless REDIS_URL makes them shared.
    """
    for connection in connections.all():
        if connection.vendor == "sqlite" and connection.is_in_memory_db():
            raise ImproperlyConfigured(
                "The live server runs in another process and cannot share an in-memory SQLite "
                "database: give DATABASES['default']['TEST'] a file NAME."
            )
    names = {alias: connections[alias].settings_dict["NAME"] for alias in connections}
    # A forked child must not share (and later close) the open connections of this thread.
    connections.close_all()
    with django_db_blocker.unblock():
        # Forked now, the child keeps database access unblocked for good.
        process = DaphneProcess(
            HOST,
            partial(make_application, static_wrapper=ASGIStaticFilesHandler),
            setup=partial(_serve_setup, names),
        )
        process.start()
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while not process.ready.wait(timeout=0.1):
            if not process.is_alive() or time.monotonic() > deadline:
                detail = "" if process.errors.empty() else process.errors.get_nowait()[1]
                raise RuntimeError(f"Daphne did not start.\n{detail}")
        yield LiveServer(HOST, process.port.value)
    finally:
        process.terminate()
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
            process.join()


@pytest.fixture(scope="module")
def browser(asgi_live_server: LiveServer) -> Iterator[Browser]:
    """Headless Chromium for one test module (see the module docstring for why not longer).

    It depends on the live server so that the server process is forked before Playwright starts
    its driver: a child forked later would hold the driver's pipes open.
    """
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run scripts/ensure-chromium.")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            # `expect` has a timeout of its own (5 s), apart from the contexts' default.
            expect.set_options(timeout=DEFAULT_TIMEOUT_MS)
            try:
                yield chromium
            finally:
                chromium.close()


_call_failed = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.when == "call":
        item.stash[_call_failed] = report.failed
    return report


@pytest.fixture
def new_page(
    request: pytest.FixtureRequest,
    browser: Browser,
    asgi_live_server: LiveServer,
    transactional_db: None,
) -> Iterator[Callable[..., Page]]:
    """Make a page in a fresh browser context; keyword arguments go to `browser.new_context`.

    JavaScript errors on any page fail the test. When a test fails, every page it opened is saved
    as a screenshot to test-results/.
    """
    contexts: list[BrowserContext] = []
    pages: list[Page] = []
    errors: list[str] = []

    def make(**context_options: Any) -> Page:
        context = browser.new_context(
            base_url=asgi_live_server.url, locale="en-US", **context_options
        )
        context.set_default_timeout(DEFAULT_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
        pages.append(page)
        return page

    yield make

    if request.node.stash.get(_call_failed, False):
        FAILURE_SCREENSHOTS.mkdir(exist_ok=True)
        name = re.sub(r"[^\w.-]+", "_", request.node.nodeid)
        for number, page in enumerate(pages):
            if not page.is_closed():
                page.screenshot(path=FAILURE_SCREENSHOTS / f"{name}-{number}.png", full_page=True)
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture
def page(new_page: Callable[..., Page]) -> Page:
    return new_page()


@pytest.fixture
def log_in(asgi_live_server: LiveServer) -> Callable[[Page, str, str], None]:
    """Sign `page` in as the user with that username or e-mail address and password, and open the
    home page, where the login form leads.

    It gives the page's context a session cookie rather than filling in the form: the form costs
    two page loads more per player, in every test that signs players in, and test_accounts.py
    signs in through it (by username and by e-mail address, and back to the page asked for).
    """

    def sign_in(page: Page, login: str, password: str) -> None:
        user = User.objects.get(Q(username__iexact=login) | Q(email__iexact=login))
        assert user.check_password(password), f"{login}'s password is not {password!r}"
        client = Client()
        client.force_login(user)
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        page.context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": asgi_live_server.url}]
        )
        page.goto("/")
        # (On a phone it is in the navigation's menu.)
        expect(page.get_by_role("button", name="Log out", include_hidden=True)).to_be_attached()

    return sign_in


@pytest.fixture
def sign_up() -> Callable[[Page, str], None]:
    """Create an account through the sign-up form; the page ends signed in on the home page."""

    def register(page: Page, username: str) -> None:
        page.goto("/accounts/signup/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Email address").fill(f"{username}@example.com")
        page.get_by_label("Password", exact=True).fill(NEW_ACCOUNT_PASSWORD)
        page.get_by_label("Password (again)").fill(NEW_ACCOUNT_PASSWORD)
        page.get_by_role("button", name="Sign Up").click()
        expect(page.get_by_role("heading", name=f"Hello, {username}")).to_be_visible()

    return register
