"""The layer rules of docs/architecture.md ("Layers: what may import what"), checked on the code.

Every module of the project's packages is read with `ast`: each `import x` and `from x import y`,
at module level or inside a function, relative imports resolved, to the most specific project
module it names (`from greycircle.games import events` is an import of `greycircle.games.events`).
The rules, from the top down:

- a game app (circles, kingscorner, cirkis) imports neither another game app nor frontend;
- frontend imports no game app;
- the platform (greycircle.*) imports no game app and not frontend;
- accounts imports nothing above it: no game app, not frontend, and of the platform only its
  plumbing (ACCOUNTS_MAY_USE), never its domain packages (games, notifications, ratings,
  profiles, moderation), nor greycircle.players;
- greycircle.players (the flows that span accounts and the games) and greycircle.lobby (seeks
  and pairing) sit above both and may import them; nothing of the platform imports them, but the
  root URLconf (greycircle.urls), which wires their views, and the ASGI application
  (greycircle.asgi), which wires the lobby's socket;
- no two modules import each other, directly or through others (an import cycle).

Nothing breaks them: a new upward import or import cycle fails a test, which names it.
"""

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PACKAGES = ("accounts", "greycircle", "circles", "kingscorner", "cirkis", "frontend")
GAME_APPS = frozenset({"circles", "kingscorner", "cirkis"})
# Above accounts and the platform; only the root URLconf and the ASGI application, which wire
# their views and sockets, import them.
PLAYERS = ("greycircle.players", "greycircle.lobby")
WIRING = ("greycircle.urls", "greycircle.asgi")

# The platform's plumbing, which knows no game, no inbox and no rating: accounts may use it.
ACCOUNTS_MAY_USE = (
    "greycircle.api",
    "greycircle.errors",
    "greycircle.runtime",
    "greycircle.converters",
    "greycircle.admin_base",
    "greycircle.presence",
    "greycircle.socket_threads",
)


def project_modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Every module of the project's packages: its dotted name, its file and whether it is a
    package (an `__init__.py`)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            is_package = parts[-1] == "__init__"
            modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def imports_of(name: str, path: Path, *, is_package: bool, modules: Iterable[str]) -> set[str]:
    """The project modules that module `name` imports, anywhere in its file."""
    known = set(modules)

    def resolved(target: str) -> str | None:
        # `import greycircle.games.models.Game` cannot be, but `from x import Class` names x.
        while target and target not in known:
            target = target.rpartition(".")[0]
        return target or None

    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        found.update(
            target for target in map(resolved, targets) if target is not None and target != name
        )
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = project_modules(root)
    return {
        name: imports_of(name, path, is_package=is_package, modules=modules)
        for name, (path, is_package) in modules.items()
    }


def rule_broken(importer: str, imported: str) -> str | None:
    """Which rule an import breaks, or None."""
    low, high = importer.split(".")[0], imported.split(".")[0]
    if low in GAME_APPS and high == "frontend":
        return "a game app imports frontend"
    if low in GAME_APPS and high in GAME_APPS and high != low:
        return "a game app imports another game app"
    if low == "frontend" and high in GAME_APPS:
        return "frontend imports a game app"
    if low == "greycircle" and (high in GAME_APPS or high == "frontend"):
        return "the platform imports an app above it"
    if low == "accounts" and (high in GAME_APPS or high == "frontend" or _players(imported)):
        return "accounts imports an app above it"
    if low == "greycircle" and _players(imported) and importer not in WIRING:
        return None if _players(importer) else "the platform imports greycircle.players"
    plumbing = any(imported == p or imported.startswith(f"{p}.") for p in ACCOUNTS_MAY_USE)
    if low == "accounts" and high == "greycircle" and not plumbing:
        return "accounts imports the platform"
    return None


def _players(module: str) -> bool:
    return any(module == above or module.startswith(f"{above}.") for above in PLAYERS)


def layer_violations(graph: dict[str, set[str]]) -> dict[tuple[str, str], str]:
    return {
        (importer, imported): rule
        for importer, imports in graph.items()
        for imported in imports
        if (rule := rule_broken(importer, imported)) is not None
    }


def import_cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The modules that reach each other through imports, one set per cycle (the strongly
    connected components of more than one module, by Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = set()
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = lowlink[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = lowlink[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    break
                if successor in on_stack:
                    lowlink[node] = min(lowlink[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    lowlink[parent] = min(lowlink[parent], lowlink[node])
                if lowlink[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.add(frozenset(component))
    return cycles


def test_imports_follow_the_layers():
    violations = layer_violations(import_graph(ROOT))
    found = sorted(f"{a} imports {b}: {rule}" for (a, b), rule in violations.items())
    assert not found, "imports against the layers (docs/architecture.md):\n" + "\n".join(found)


def test_no_import_cycle():
    cycles = sorted(", ".join(sorted(cycle)) for cycle in import_cycles(import_graph(ROOT)))
    assert not cycles, "import cycles (each line, the modules that import each other):\n" + (
        "\n".join(cycles)
    )


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_check_reads_every_kind_of_import(tmp_path):
    """Imports inside functions and relative ones count, and name the module they reach."""
    _write(
        tmp_path,
        {
            "accounts/__init__.py": "",
            "accounts/friends.py": "def tell():\n    from greycircle.games import events\n",
            "greycircle/__init__.py": "",
            "greycircle/api/__init__.py": "",
            "greycircle/api/errors.py": "",
            "greycircle/games/__init__.py": "",
            "greycircle/games/events.py": "from ..api import errors\nimport circles.rules\n",
            "circles/__init__.py": "",
            "circles/rules.py": "from . import page\n",
            "circles/page.py": "from frontend.views import game\n",
            "frontend/__init__.py": "",
            "frontend/views.py": "from kingscorner.rules import play\n",
            "kingscorner/__init__.py": "",
            "kingscorner/rules.py": "import accounts.friends\n",
        },
    )
    graph = import_graph(tmp_path)
    assert graph["accounts.friends"] == {"greycircle.games.events"}
    assert graph["greycircle.games.events"] == {"greycircle.api.errors", "circles.rules"}
    assert graph["circles.rules"] == {"circles.page"}
    assert layer_violations(graph) == {
        ("accounts.friends", "greycircle.games.events"): "accounts imports the platform",
        ("greycircle.games.events", "circles.rules"): "the platform imports an app above it",
        ("circles.page", "frontend.views"): "a game app imports frontend",
        ("frontend.views", "kingscorner.rules"): "frontend imports a game app",
    }
    assert import_cycles(graph) == {
        frozenset(
            {
                "accounts.friends",
                "greycircle.games.events",
                "circles.rules",
                "circles.page",
                "frontend.views",
                "kingscorner.rules",
            }
        )
    }


def test_greycircle_players_sits_above_accounts_and_the_platform(tmp_path):
    """players may import both; the platform (but for the root URLconf) and accounts may not
    import players."""
    _write(
        tmp_path,
        {
            "accounts/__init__.py": "",
            "accounts/views.py": "from greycircle.players import views\n",
            "greycircle/__init__.py": "",
            "greycircle/urls.py": "from greycircle.players import views\n",
            "greycircle/games/__init__.py": "",
            "greycircle/games/worker.py": "from greycircle.players import guests\n",
            "greycircle/players/__init__.py": "",
            "greycircle/players/guests.py": "import accounts.views\nfrom ..games import worker\n",
            "greycircle/players/views.py": "",
        },
    )
    assert layer_violations(import_graph(tmp_path)) == {
        ("accounts.views", "greycircle.players.views"): "accounts imports an app above it",
        ("greycircle.games.worker", "greycircle.players.guests"): (
            "the platform imports greycircle.players"
        ),
    }


def test_the_architecture_document_states_these_rules():
    """The rules are written once, in the document; this test and it name the same plumbing."""
    document = (ROOT / "docs" / "architecture.md").read_text()
    section = document.split("## Layers: what may import what", 1)[1].split("\n## ", 1)[0]
    assert "tests/greycircle/test_layers.py" in section
    assert [module for module in ACCOUNTS_MAY_USE if f"`{module}`" not in section] == []
