"""The layers hold in the database too, where import-linter cannot see: an app's foreign keys (in
its models and its migrations), its migrations' dependencies and its SQL (<app>/sql/*.sql and its
statements module) reach only its own and lower layers. The layers are import-linter's, read from
pyproject.toml: one rule written once.

A reference that goes up is listed in UPWARD, each with why; the test fails on any other, and on a
listed one that is gone (the list stays true)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from django.apps import apps
from django.db.migrations.loader import MigrationLoader

ROOT = Path(__file__).resolve().parent.parent
APPS = ("core", "ledger", "protection", "accounts", "casino")

# Players, partners and staff users are accounts' models, above the ledger and protection; yet a
# ledger account, an adjustment, a limit, an exclusion and a reality check belong to one, and the
# database must refuse one of nobody (its foreign key). They reference accounts' rows, by design,
# and only from the models and migrations listed here: no SQL of theirs reads accounts' tables.
_OWNED_BY_A_PLAYER = "a row of a player, partner or staff member, which the database holds to one that exists"
UPWARD = {
    "model ledger.Account.player -> accounts": _OWNED_BY_A_PLAYER,
    "model ledger.Account.partner -> accounts": _OWNED_BY_A_PLAYER,
    "model ledger.Adjustment.player -> accounts": _OWNED_BY_A_PLAYER,
    "model ledger.Adjustment.proposed_by -> accounts": _OWNED_BY_A_PLAYER,
    "model ledger.Adjustment.decided_by -> accounts": _OWNED_BY_A_PLAYER,
    "model protection.RealityCheck.player -> accounts": _OWNED_BY_A_PLAYER,
    "model protection.Exclusion.player -> accounts": _OWNED_BY_A_PLAYER,
    "model protection.PlayerLimit.player -> accounts": _OWNED_BY_A_PLAYER,
    "migration ledger.0001_squashed_0011_post_entries_together -> accounts": "the foreign keys above",
    "migration protection.0001_squashed_0002_stake_guards_function -> accounts": "the foreign keys above",
}


def layers() -> dict[str, int]:
    """Each app's height: import-linter's layers contract, the first in pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return {app: height for height, app in enumerate(reversed(contract["layers"]))}


def _upward(app: str, referenced: str, height: dict[str, int]) -> bool:
    return referenced in height and height[referenced] > height[app]


def model_references() -> list[tuple[str, str]]:
    """(what, the app it references) for every foreign key and one-to-one field of our models."""
    found = []
    for app in APPS:
        for model in apps.get_app_config(app).get_models():
            for field in model._meta.get_fields():
                if field.is_relation and field.concrete and field.related_model is not None:
                    found.append((f"model {app}.{model.__name__}.{field.name}", field.related_model._meta.app_label))
    return found


STRING_REFERENCE = re.compile(r"""to=['"](\w+)\.\w+['"]""")


def migration_references() -> list[tuple[str, str]]:
    """(what, the app it references) for every migration's dependencies and "app.Model" strings."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    found = []
    for (app, name), migration in loader.disk_migrations.items():
        if app not in APPS:
            continue
        what = f"migration {app}.{name}"
        found += [(what, dependency[0]) for dependency in migration.dependencies]
        source = Path(apps.get_app_config(app).path, "migrations", f"{name}.py").read_text(encoding="utf-8")
        found += [(what, referenced) for referenced in STRING_REFERENCE.findall(source)]
        if "settings.AUTH_USER_MODEL" in source:
            found.append((what, "accounts"))
    return found


def sql_references(app: str, sql: str) -> list[str]:
    """The apps whose tables (FROM, JOIN, UPDATE, INSERT INTO, DELETE FROM) or functions (a call)
    this SQL names; comments are left out."""
    sql = re.sub(r"--[^\n]*", "", sql)
    prefixes = "|".join(APPS)
    tables = re.findall(rf"\b(?:FROM|JOIN|UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+({prefixes})_\w+", sql, re.I)
    calls = re.findall(rf"\b({prefixes})_\w+\s*\(", sql)
    return tables + calls


def sql_files(app: str) -> list[Path]:
    directory = Path(apps.get_app_config(app).path)
    return [
        *sorted((directory / "sql").glob("*.sql")),
        *sorted(directory.glob("sql.py")),
        *sorted((directory / "sql").glob("__init__.py")),
    ]


def statements_of(path: Path) -> str:
    """The SQL of a file: a .sql file whole, a Python module's string constants (not its docstrings)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".sql":
        return text
    tree = ast.parse(text)
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    strings = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]
    return "\n".join(strings)


def all_references() -> list[tuple[str, str]]:
    found = model_references() + migration_references()
    for app in APPS:
        for path in sql_files(app):
            what = f"sql {path.relative_to(ROOT)}"
            found += [(what, referenced) for referenced in sql_references(app, statements_of(path))]
    return found


def test_nothing_in_the_database_reaches_a_higher_layer_but_what_is_listed():
    height = layers()
    upward = set()
    for what, referenced in all_references():
        app = what.split(" ", 1)[1].split(".")[0].split("/")[0]
        if _upward(app, referenced, height):
            upward.add(f"{what} -> {referenced}")
    assert sorted(upward - UPWARD.keys()) == [], "a reference up the layers (docs/ARCHITECTURE.md 'Layers')"
    assert sorted(UPWARD.keys() - upward) == [], "listed as going up, but gone: take it off UPWARD"


def test_the_finder_sees_sql_and_strings_that_go_up():
    height = layers()
    assert [
        r
        for r in sql_references("ledger", "SELECT 1 FROM casino_round r JOIN ledger_account a ON true")
        if _upward("ledger", r, height)
    ] == ["casino"]
    assert sql_references("ledger", "-- casino_rounds_settle calls it\nPERFORM casino_round_place(1)") == ["casino"]
    assert sql_references("casino", "SELECT ledger_post_entries(1) FROM accounts_player") == ["accounts", "ledger"]
    assert STRING_REFERENCE.findall("models.ForeignKey(to='accounts.player')") == ["accounts"]
    assert _upward("protection", "accounts", height) and not _upward("casino", "ledger", height)
