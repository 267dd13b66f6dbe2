"""The Origin rule for cookie-authenticated sockets: scheme, host and port of the handshake's Host.

(End to end, with the consumers and close codes: tests/games/test_consumers.py.)
"""

import pytest

from accounts.websocket_auth import same_origin


def scope(origin: str | None, host: str | None, scheme: str = "ws", **headers: str) -> dict:
    pairs = [(b"origin", origin), (b"host", host)]
    pairs += [(name.replace("_", "-").encode(), value) for name, value in headers.items()]
    return {
        "type": "websocket",
        "scheme": scheme,
        "headers": [(name, value.encode()) for name, value in pairs if value is not None],
    }


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "allowed"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", "ws", True),
        ("http://localhost", "localhost", "ws", True),
        ("http://localhost:80", "localhost", "ws", True),
        ("http://localhost", "localhost:80", "ws", True),
        ("HTTP://LocalHost:8000", "localhost:8000", "ws", True),
        ("https://localhost", "localhost", "wss", True),
        ("https://localhost:443", "localhost", "wss", True),
        # Another port of an allowed host name is another site (it used to pass).
        ("http://127.0.0.1:9999", "127.0.0.1:8000", "ws", False),
        ("http://localhost:8080", "localhost", "ws", False),
        # ws pairs with http and wss with https.
        ("https://localhost", "localhost", "ws", False),
        ("http://localhost", "localhost", "wss", False),
        ("http://127.0.0.1:8000", "localhost:8000", "ws", False),
        ("http://evil.example", "evil.example", "ws", False),  # a Host we don't serve
        ("null", "localhost", "ws", False),
        ("http://localhost:notaport", "localhost", "ws", False),
        ("", "localhost", "ws", False),
        (None, "localhost", "ws", False),
    ],
)
def test_the_origin_must_match_the_handshakes_scheme_host_and_port(origin, host, scheme, allowed):
    assert same_origin(scope(origin, host, scheme)) is allowed


def test_a_tls_terminating_proxy_is_trusted_as_django_trusts_it(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    behind_proxy = scope("https://localhost", "localhost", "ws", x_forwarded_proto="https")
    assert same_origin(behind_proxy)
    assert not same_origin(scope("https://localhost", "localhost", "ws", x_forwarded_proto="http"))
    settings.SECURE_PROXY_SSL_HEADER = None
    assert not same_origin(behind_proxy)


def test_csrf_trusted_origins_are_allowed(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://app.example.com", "https://*.games.example.com"]
    assert same_origin(scope("https://app.example.com", "localhost"))
    assert same_origin(scope("https://app.example.com:443", "localhost"))
    assert same_origin(scope("https://eu.games.example.com", "localhost"))
    assert not same_origin(scope("http://app.example.com", "localhost"))
    assert not same_origin(scope("https://app.example.com:8443", "localhost"))
    assert not same_origin(scope("https://example.com", "localhost"))


def test_without_a_host_header_only_the_host_name_is_checked():
    """Browsers always send Host; test clients that send none are checked as before."""
    assert same_origin(scope("http://testserver", None))
    assert not same_origin(scope("http://evil.example", None))
