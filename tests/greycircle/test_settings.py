"""Production settings pass Django's deployment checks; the embedded default needs no services."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION_ENV = {
    "SECRET_KEY": secrets.token_urlsafe(50),
    "DEBUG": "0",
    "ALLOWED_HOSTS": "games.example.com",
    "DATABASE_URL": "postgres://greycircle:secret@db.example.com:5432/greycircle",
    "REDIS_URL": "redis://cache.example.com:6379/0",
    "EMAIL_URL": "smtp://mailer:secret@mail.example.com:587?tls=1",
}


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in PRODUCTION_ENV}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_passes_with_production_environment():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_environment_selects_postgres_redis_and_smtp():
    code = (
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE']);"
        "print(s.CHANNEL_LAYERS['default']['BACKEND']);"
        "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_USE_TLS);"
        "print(s.DEBUG)"
    )
    result = manage("shell", "--no-imports", "-c", code, env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:4] == [
        "django.db.backends.postgresql",
        "greycircle.runtime.channels.PipelinedRedisChannelLayer",
        "django.core.mail.backends.smtp.EmailBackend mail.example.com 587 True",
        "False",
    ]


def test_the_default_is_embedded():
    code = (
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE']);"
        "print(s.CHANNEL_LAYERS['default']['BACKEND']);"
        "print(s.EMAIL_BACKEND)"
    )
    env = {"DJANGO_SETTINGS_MODULE": "greycircle.settings"}
    result = manage("shell", "--no-imports", "-c", code, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:3] == [
        "django.db.backends.sqlite3",
        "greycircle.runtime.channels.BatchingInMemoryChannelLayer",
        "django.core.mail.backends.console.EmailBackend",
    ]


def test_num_proxies_sets_the_trusted_proxies_of_drf_and_allauth_alike():
    code = (
        "from django.conf import settings as s;"
        "print(s.REST_FRAMEWORK['NUM_PROXIES'], s.ALLAUTH_TRUSTED_PROXY_COUNT)"
    )
    default = manage("shell", "--no-imports", "-c", code, env={})
    assert default.returncode == 0, default.stderr
    assert default.stdout.split("\n")[0] == "0 0"
    two = manage("shell", "--no-imports", "-c", code, env={"NUM_PROXIES": "2"})
    assert two.stdout.split("\n")[0] == "2 2"


def test_api_bodies_are_checked_before_sessions_and_csrf_read_them():
    from django.conf import settings

    middleware = settings.MIDDLEWARE
    limits = middleware.index("greycircle.api.middleware.request_limits")
    assert limits < middleware.index("django.contrib.sessions.middleware.SessionMiddleware")
    assert limits < middleware.index("django.middleware.csrf.CsrfViewMiddleware")
    assert settings.API_MAX_BODY_BYTES == 64 * 1024
    assert settings.ACCOUNT_ADAPTER == "accounts.adapter.AccountAdapter"
