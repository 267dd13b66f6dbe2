"""UPGRADING.md is the upgrade contract of the library seams: each section is headed by a pin of
pyproject.toml (`## Django==5.2.19`) and names the modules that reach into that library.

These tests fail when a pin moves without its section, when a seam the file names is gone, and
when a module starts importing a library's internal modules without being listed there.
"""

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UPGRADING = ROOT / "UPGRADING.md"

# The libraries whose internals our seams reach into: each needs its section.
SEAM_LIBRARIES = frozenset(
    {
        "django",
        "channels",
        "channels-redis",
        "redis",
        "django-tasks",
        "django-tasks-db",
        "a2wsgi",
        "uvicorn",
        "websockets",
        "django-allauth",
        "djangorestframework",
        "drf-spectacular",
    }
)

# Library modules that are no public API of theirs (or whose classes we subclass to replace
# their internals): a module importing one is a seam, named in its library's section.
INTERNAL_MODULES = {
    "django.core.cache.backends.redis": "django",
    "django.core.management.commands.flush": "django",
    "channels.consumer": "channels",
    "channels.utils": "channels",
    "channels_redis.core": "channels-redis",
    "django_tasks_db.backend": "django-tasks-db",
    "django_tasks_db.management.commands.db_worker": "django-tasks-db",
    "django_tasks_db.utils": "django-tasks-db",
    "a2wsgi.wsgi": "a2wsgi",
    "uvicorn.config": "uvicorn",
    "uvicorn.protocols": "uvicorn",
    "uvicorn.supervisors": "uvicorn",
    "drf_spectacular.plumbing": "drf-spectacular",
}
# Any `allauth.<app>.internal...` module.
ALLAUTH_INTERNAL = re.compile(r"^allauth(\.\w+)*\.internal(\.|$)")

# Where our own code lives (bench/ measures the libraries' own ways against ours on purpose).
SOURCE_DIRS = ("accounts", "circles", "cirkis", "frontend", "greycircle", "kingscorner", "tests")

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(\S+)$")
HEADING = re.compile(r"^## ([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)\s*$", re.MULTILINE)


def normalized(name: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pyproject_pins() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        requirements.extend(extra)
    pins = {}
    for requirement in requirements:
        match = PIN.match(requirement.replace(" ", ""))
        assert match, f"pyproject.toml pins every dependency exactly (name==version): {requirement}"
        pins[normalized(match[1])] = match[2]
    return pins


def upgrading_sections() -> dict[str, tuple[str, str]]:
    """`{library: (pinned version, section text)}` from UPGRADING.md's headings."""
    text = UPGRADING.read_text()
    headings = list(HEADING.finditer(text))
    sections = {}
    for heading in headings:
        # A section runs to the next heading of its level or above.
        rest = text[heading.end() :]
        next_heading = re.search(r"^#{1,2} ", rest, re.MULTILINE)
        body = rest[: next_heading.start()] if next_heading else rest
        name = normalized(heading[1])
        assert name not in sections, f"UPGRADING.md has two sections for {heading[1]}"
        sections[name] = (heading[2], body)
    return sections


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, anywhere in it (`from a import b` counts a and a.b)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def internal_library(module: str) -> str | None:
    if ALLAUTH_INTERNAL.match(module):
        return "django-allauth"
    for prefix, library in INTERNAL_MODULES.items():
        if module == prefix or module.startswith(prefix + "."):
            return library
    return None


def source_files() -> list[Path]:
    return sorted(
        path
        for directory in SOURCE_DIRS
        for path in (ROOT / directory).rglob("*.py")
        if "migrations" not in path.parts
    )


def test_each_section_records_the_version_pyproject_pins():
    pins = pyproject_pins()
    for library, (version, _) in upgrading_sections().items():
        assert library in pins, f"UPGRADING.md has a section for {library}, which is not pinned"
        assert pins[library] == version, (
            f"pyproject.toml pins {library}=={pins[library]} but UPGRADING.md was checked against "
            f"{version}: re-check its section (what it lists), then update its heading"
        )


def test_every_library_a_seam_touches_has_its_section():
    missing = SEAM_LIBRARIES - set(upgrading_sections())
    assert not missing, f"no UPGRADING.md section for {sorted(missing)}"


def test_the_modules_upgrading_names_exist():
    ours = "|".join(SOURCE_DIRS)
    named = set(re.findall(rf"`((?:{ours})/[\w./-]+\.py)`", UPGRADING.read_text()))
    assert named, "UPGRADING.md names the modules of each seam"
    missing = sorted(path for path in named if not (ROOT / path).is_file())
    assert not missing, f"UPGRADING.md names modules that are gone (moved?): {missing}"


def test_every_module_importing_a_library_internal_is_in_that_library_section():
    sections = upgrading_sections()
    unlisted = []
    for path in source_files():
        relative = path.relative_to(ROOT).as_posix()
        for module in sorted(imported_modules(path)):
            library = internal_library(module)
            if library is not None and f"`{relative}`" not in sections[library][1]:
                unlisted.append(f"{relative} imports {module} ({library})")
    assert not unlisted, "seams missing from UPGRADING.md:\n" + "\n".join(unlisted)


def test_internal_imports_are_recognised():
    # The check above is only as good as its reading of imports.
    assert internal_library("allauth.headless.internal.sessionkit") == "django-allauth"
    assert internal_library("allauth.account.internal.flows.manage_email") == "django-allauth"
    assert internal_library("allauth.account.auth_backends") is None
    assert internal_library("uvicorn.protocols.websockets.websockets_sansio_impl") == "uvicorn"
    assert internal_library("uvicorn") is None
    assert "django.core.management.commands.flush" in imported_modules(ROOT / "tests/conftest.py")


# The modules that replace or patch a library's internals: each opens with its seam's header.
SEAM_MODULES = (
    "accounts/adapter.py",
    "accounts/api.py",
    "accounts/forms.py",
    "accounts/websocket_auth.py",
    "greycircle/api/middleware.py",
    "greycircle/api/schema.py",
    "greycircle/api/throttling.py",
    "greycircle/games/consumers.py",
    "greycircle/games/replay_serializers.py",
    "greycircle/games/schema.py",
    "greycircle/runtime/cache.py",
    "greycircle/runtime/channels.py",
    "greycircle/players/api.py",
    "greycircle/runtime/db_rows.py",
    "greycircle/runtime/server.py",
    "greycircle/runtime/tasks_backend.py",
    "greycircle/runtime/worker.py",
    "greycircle/runtime/wsgi_bridge.py",
    "tests/conftest.py",
)
SEAM_HEADER = re.compile(
    r"^Library seam \(UPGRADING\.md[^)]*\): (.+?)\.(?:\s|$)", re.MULTILINE | re.DOTALL
)


def seam_header_pins(path: Path) -> dict[str, str] | None:
    """The `library==version` pins a module's "Library seam" header was checked against."""
    docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
    header = SEAM_HEADER.search(docstring)
    if header is None:
        return None
    pins = dict(re.findall(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][^\s,]*)", header[1]))
    return {normalized(name): version for name, version in pins.items()}


def test_each_seam_module_says_which_versions_it_was_checked_against():
    pins = pyproject_pins()
    sections = upgrading_sections()
    for relative in SEAM_MODULES:
        checked = seam_header_pins(ROOT / relative)
        assert checked, f"{relative} opens with its 'Library seam (UPGRADING.md, ...)' header"
        for library, version in checked.items():
            assert pins.get(library) == version, (
                f"{relative} was checked against {library}=={version}; pyproject.toml pins "
                f"{pins.get(library)}: re-check it (UPGRADING.md) and update its header"
            )
            assert f"`{relative}`" in sections[library][1], (
                f"UPGRADING.md's {library} section lists {relative}"
            )


def test_every_seam_header_in_the_code_matches_the_pins():
    # Also the headers of modules this file does not list (a seam added later).
    pins = pyproject_pins()
    for path in source_files():
        for library, version in (seam_header_pins(path) or {}).items():
            assert pins.get(library) == version, f"{path.relative_to(ROOT)}: {library}=={version}"
