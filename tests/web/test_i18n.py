"""English, Brazilian Portuguese and Spanish: complete catalogues, nothing left unmarked, the
player's language chosen and remembered, API errors and money in the caller's language."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.urls import reverse

from tests.factories import TableFactory, make_player

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("pt_BR", "es")
# Names that stay as they are in every language: the rule book's proper names and presets.
PROPER_NAMES = {
    "API", "Război", "Tod und Leben", "P'yanitsa", "classic", "standard", "one_down", "multiplayer", "three_player",
    "|◀", "◀", "▶", "▶▶ 10", "▶|", "★",
}  # fmt: skip


def test_every_template_text_is_marked_for_translation():
    unmarked = []
    for template in sorted((ROOT / "web" / "templates" / "web").glob("*.html")):
        text = template.read_text()
        text = re.sub(r"{%\s*blocktranslate.*?{%\s*endblocktranslate\s*%}", " ", text, flags=re.S)
        text = re.sub(r"{%.*?%}|{{.*?}}|{#.*?#}", " ", text, flags=re.S)
        text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
        text = re.sub(r"<[^>]*>", "\n", text)
        for chunk in (c.strip() for c in text.split("\n")):
            words = chunk.strip(" ·:,.()→←\u2013\u2014")  # with en and em dashes
            if re.search(r"[A-Za-z]{2,}", words) and words not in PROPER_NAMES:
                unmarked.append(f"{template.name}: {chunk!r}")
    assert not unmarked, "\n".join(unmarked)


def test_every_attribute_text_of_the_templates_is_marked_for_translation():
    unmarked = []
    for template in sorted((ROOT / "web" / "templates" / "web").glob("*.html")):
        for attribute, value in re.findall(r'\b(aria-label|placeholder|title|alt)="([^"{]*)"', template.read_text()):
            if re.search(r"[A-Za-z]{3,}", value) and value not in PROPER_NAMES:
                unmarked.append(f"{template.name}: {attribute}={value!r}")
    assert not unmarked, "\n".join(unmarked)


def test_every_sentence_of_the_scripts_goes_through_gettext():
    unmarked = []
    for script in sorted((ROOT / "web" / "static" / "web").glob("*.js")):
        source = script.read_text()
        for match in re.finditer(r'(?<![\w.])("([^"\\\n]*)")', source):
            literal = match[2]
            before = source[max(0, match.start() - 14) : match.start()]
            if not re.search(r"[A-Za-z]+ [A-Za-z]+", literal) or re.search(r"gettext(_noop)?\($", before):
                continue
            if re.search(r"[#\[\]=]|^[a-z-]+( [a-z-]+)*$", literal):  # selectors, class lists, attribute values
                continue
            unmarked.append(f"{script.name}: {literal!r}")
    assert not unmarked, "\n".join(unmarked)


@pytest.mark.skipif(not shutil.which("xgettext"), reason="makemessages needs GNU gettext (.ci/run installs it)")
def test_the_catalogues_translate_every_marked_string(tmp_path):
    """Extract the strings afresh (in a copy of the project) and check that both catalogues
    translate each of them: no empty msgstr, nothing fuzzy."""
    copy = tmp_path / "project"
    skip = shutil.ignore_patterns(".venv", "var", "artifacts", ".git", "__pycache__", "node_modules", "docs", "tests")
    shutil.copytree(ROOT, copy, ignore=skip)
    env = {**os.environ, "DEBUG": "true", "PYTHONPATH": str(copy)}
    ignores = ["--ignore", "benchmarks/*", "--ignore", "casino/engine/*", "--ignore", "casino/odds/*"]
    for domain in ("django", "djangojs"):
        subprocess.run(
            [sys.executable, "manage.py", "makemessages", "-d", domain, *[arg for lang in LANGUAGES for arg in ("-l", lang)],
             *ignores],
            cwd=copy, env=env, check=True, capture_output=True,
        )  # fmt: skip
    problems = []
    for lang in LANGUAGES:
        for domain in ("django", "djangojs"):
            for entry in polib.pofile(str(copy / "locale" / lang / "LC_MESSAGES" / f"{domain}.po")):
                untranslated = not entry.msgstr if not entry.msgid_plural else not all(entry.msgstr_plural.values())
                if untranslated or "fuzzy" in entry.flags:
                    problems.append(f"{lang} {domain}: {entry.msgid!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "heading", "amount"),
    [("en", "Open tables", "€1.00 to €500.00"), ("pt-BR,pt;q=0.9", "Mesas abertas", "1,00\u00a0€ a 500,00\u00a0€"),
     ("es-ES,es;q=0.9", "Mesas abiertas", "1,00\u00a0€ a 500,00\u00a0€")],
)  # fmt: skip
def test_the_lobby_speaks_the_browsers_language_with_its_money_format(client, accept, heading, amount):
    TableFactory(min_bet=100, max_bet=50_000)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE=accept).content.decode()
    assert f"<h1>{heading}</h1>" in page and amount in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "detail"),
    [("en", "there is no table 999"), ("pt-BR", "não existe a mesa 999"), ("es", "no existe la mesa 999")],
)
def test_an_api_errors_detail_follows_accept_language_and_its_code_does_not(client, accept, detail):
    player = make_player(balance=1_000)
    client.force_login(player.user)
    response = client.post(
        "/api/v1/rounds/", {"table": 999, "main_bet": 100}, content_type="application/json",
        HTTP_ACCEPT_LANGUAGE=accept, HTTP_IDEMPOTENCY_KEY=f"k-{accept}",
    )  # fmt: skip
    body = response.json()
    assert body["code"] == "unknown_table" and detail in body["detail"]


@pytest.mark.django_db
def test_a_players_chosen_language_beats_the_browsers_and_comes_back_at_sign_in(client):
    player = make_player(username="lucia")
    player.user.set_password("una-contraseña-larga")
    player.user.save()
    client.force_login(player.user)
    client.post(reverse("web:language"), {"language": "es", "next": "/"})
    player.refresh_from_db()
    assert player.language == "es"
    assert "Mesas abiertas" in client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    client.post(reverse("web:signout"))
    client.cookies.clear()
    assert "Open tables" in client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    client.post(reverse("web:signin"), {"username": "lucia", "password": "una-contraseña-larga"})
    assert "Mesas abiertas" in client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


@pytest.mark.django_db
def test_an_unknown_language_changes_nothing(client):
    player = make_player()
    client.force_login(player.user)
    client.post(reverse("web:language"), {"language": "xx"})
    player.refresh_from_db()
    assert player.language == ""
