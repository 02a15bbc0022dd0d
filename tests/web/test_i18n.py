"""English, Brazilian Portuguese and Spanish: complete catalogues, nothing left unmarked, the
player's language chosen and remembered, API errors and money in the caller's language."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import polib
import pytest
from django.urls import reverse

from tests.factories import TableFactory, make_player

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("pt_BR", "es")
# Names that stay as they are in every language: the rule book's proper names and presets.
PROPER_NAMES = {
    "API",
    "Război",
    "Tod und Leben",
    "P'yanitsa",
    "classic",
    "standard",
    "one_down",
    "multiplayer",
    "three_player",
    "|◀",
    "◀",
    "▶",
    "▶▶ 10",
    "▶|",
    "★",
}


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


def readme_makemessages() -> list[list[str]]:
    """README's makemessages command lines (`bin/manage ARGS`), as argument lists."""
    lines = [
        line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("bin/manage makemessages")
    ]
    assert len(lines) == 2, lines
    return [shlex.split(line)[1:] for line in lines]


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """The catalogues as README's makemessages commands leave them, run in a copy of the project."""
    if not (shutil.which("xgettext") and shutil.which("msgmerge")):
        pytest.skip("makemessages needs GNU gettext (.ci/run installs it)")
    copy = tmp_path_factory.mktemp("catalogues") / "project"
    skip = shutil.ignore_patterns(".venv", "var", "artifacts", ".git", "__pycache__", "node_modules", "docs", "tests")
    shutil.copytree(ROOT, copy, ignore=skip)
    env = {**os.environ, "DEBUG": "true", "PYTHONPATH": str(copy)}
    for arguments in readme_makemessages():
        subprocess.run([sys.executable, "manage.py", *arguments], cwd=copy, env=env, check=True, capture_output=True)
    return copy / "locale"


def test_the_catalogues_translate_every_marked_string(extracted):
    """Extract the strings afresh and check that both catalogues translate each of them: no empty
    msgstr, nothing fuzzy."""
    problems = []
    for lang in LANGUAGES:
        for domain in ("django", "djangojs"):
            for entry in polib.pofile(str(extracted / lang / "LC_MESSAGES" / f"{domain}.po")):
                untranslated = not entry.msgstr if not entry.msgid_plural else not all(entry.msgstr_plural.values())
                if untranslated or "fuzzy" in entry.flags:
                    problems.append(f"{lang} {domain}: {entry.msgid!r}")
    assert not problems, "\n".join(problems)


def _without_creation_date(text: str) -> str:
    return re.sub(r'^"POT-Creation-Date: .*\\n"$', "", text, flags=re.M)


@pytest.mark.parametrize("domain", ["django", "djangojs"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_committed_catalogues_are_what_makemessages_makes(extracted, lang, domain):
    """After changing a text, run README's makemessages and commit what it wrote: nothing stale stays
    active, nothing new is missing (only the creation date may differ)."""
    committed = ROOT / "locale" / lang / "LC_MESSAGES" / f"{domain}.po"
    made = extracted / lang / "LC_MESSAGES" / f"{domain}.po"
    assert _without_creation_date(committed.read_text()) == _without_creation_date(made.read_text()), (
        f"{committed.relative_to(ROOT)} is not what README's makemessages makes: run it, translate, compilemessages"
    )


@pytest.mark.parametrize("domain", ["django", "djangojs"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_committed_compiled_catalogues_are_their_po_files(lang, domain):
    folder = ROOT / "locale" / lang / "LC_MESSAGES"
    translated = {
        (e.msgctxt, e.msgid): e.msgstr for e in polib.pofile(str(folder / f"{domain}.po")).translated_entries()
    }
    compiled = {(e.msgctxt, e.msgid): e.msgstr for e in polib.mofile(str(folder / f"{domain}.mo")) if e.msgid}
    assert compiled == translated, f"{domain}.mo of {lang} is stale: run compilemessages"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "heading", "amount"),
    [
        ("en", "Open tables", "€1.00 to €500.00"),
        ("pt-BR,pt;q=0.9", "Mesas abertas", "1,00\u00a0€ a 500,00\u00a0€"),
        ("es-ES,es;q=0.9", "Mesas abiertas", "1,00\u00a0€ a 500,00\u00a0€"),
    ],
)
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
        "/api/v1/rounds/",
        {"table": 999, "main_bet": 100},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE=accept,
        HTTP_IDEMPOTENCY_KEY=f"k-{accept}",
    )
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


# --- What a page shows is in the page's language -------------------------------------------------

# Shown alike in every language: a currency's code, the language switcher's names of each language in
# itself, "nonce" (the fairness recipe's word), "normal" (a word the three share); and the data of the
# pages below (a client seed).
SHOWN_AS_IS = PROPER_NAMES | {"EUR", "English", "Português Brasileiro", "español", "Nonce", "normal", "web"}


def shown_texts(html: str) -> set[str]:
    """Every text a page shows (between two tags of its body, or in a title, label or placeholder),
    scripts and styles left out; long hexadecimal strings (seeds, hashes, ids) are data."""
    body = html.split("<body", 1)[-1].split(">", 1)[-1]
    attributes = re.findall(r'\b(?:title|aria-label|alt|placeholder)="([^"]*)"', body)
    body = re.sub(r"<(script|style)\b.*?</\1>|<!--.*?-->", " ", body, flags=re.S)
    texts = set()
    for chunk in [*re.split(r"<[^>]*>", body), *attributes]:
        text = " ".join(unescape(chunk).split())
        if re.search(r"[A-Za-z]{3,}", text) and not re.fullmatch(r"[0-9a-f-]{8,}", text):
            texts.add(text)
    return texts


@pytest.fixture
def played(client, django_capture_on_commit_callbacks):
    """A player whose wallet has moved every way a player's own wallet moves (top-up, stakes, a
    payout, an operator's adjustment, a reversal), with rounds of every decision, and a limit."""
    from casino.models import Round
    from casino.services.rounds import round_decide, round_place
    from core.actors import Actor
    from ledger.services import adjustment_approve, adjustment_propose, ledger_reverse
    from protection.services import limit_set
    from tests.browser import give_seed
    from tests.factories import StaffFactory

    table = TableFactory(name="T-1", min_bet=100, max_bet=50_000, max_tie_bet=5_000)
    player = make_player(balance=100_000, username="zz9")
    give_seed(player, _seed_with_ties([False, True, True]))
    actor = Actor.player(player)
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            placed = round_place(player=player, table_id=table.pk, main_bet=500, tie_bet=100, actor=actor)
            if placed.status == "awaiting_decision":
                action = "war" if Round.objects.filter(player=player, decision="war").count() == 0 else "surrender"
                round_decide(player=player, round_id=str(placed.id), action=action, actor=actor)
    maker, checker = StaffFactory(), StaffFactory()
    adjustment = adjustment_propose(player=player, amount=250, reason="goodwill", proposed_by=maker)
    adjustment = adjustment_approve(adjustment=adjustment, approved_by=checker)
    ledger_reverse(entry=adjustment.entry, reason="given twice", actor=Actor.system("tests"))
    limit_set(player=player, kind="loss", period="day", amount=5_000, actor=actor)
    limit_set(player=player, kind="loss", period="day", amount=50_000, actor=actor)  # raised: from tomorrow
    client.force_login(player.user)
    return {"table": table, "round": Round.objects.filter(player=player).first()}


@pytest.mark.django_db
@pytest.mark.parametrize("accept", ["pt-BR", "es"])
def test_no_english_text_is_shown_on_a_translated_page(client, played, accept):
    """What a player's pages show in English must not be shown the same in Portuguese or Spanish
    (a wallet line's kind, an outcome, a date's month...): each page, in English and in the
    language, with data of every kind; a text both show alike is a text left untranslated."""
    table, round_ = played["table"], played["round"]
    paths = [
        "/",
        "/rules/",
        "/war/",
        "/wallet/",
        "/history/",
        f"/history/{round_.id}/",
        "/fairness/",
        "/play-safe/",
        f"/tables/{table.pk}/",
    ]
    untranslated = []
    for path in paths:
        english = shown_texts(client.get(path, HTTP_ACCEPT_LANGUAGE="en").content.decode())
        translated = shown_texts(client.get(path, HTTP_ACCEPT_LANGUAGE=accept).content.decode())
        untranslated += [f"{path}: {text!r}" for text in sorted(english & translated - SHOWN_AS_IS)]
    client.logout()
    for path in ("/signup/", "/signin/", "/terms/"):
        english = shown_texts(client.get(path, HTTP_ACCEPT_LANGUAGE="en").content.decode())
        translated = shown_texts(client.get(path, HTTP_ACCEPT_LANGUAGE=accept).content.decode())
        untranslated += [f"{path}: {text!r}" for text in sorted(english & translated - SHOWN_AS_IS)]
    assert not untranslated, "\n".join(untranslated)


@pytest.mark.parametrize("accept", ["pt-BR", "es"])
def test_every_kind_of_wallet_line_is_named_in_the_players_language(accept):
    from django.template.loader import render_to_string
    from django.utils import translation

    from ledger.models import EntryKind

    names = {}
    for kind in EntryKind:
        with translation.override("en"):
            english = render_to_string("web/_entry_kind.html", {"kind": kind.value})
        with translation.override(accept):
            names[kind.value] = render_to_string("web/_entry_kind.html", {"kind": kind.value})
        assert names[kind.value] not in ("", "—", english), (kind, names[kind.value])
    assert len(set(names.values())) == len(EntryKind)


def _seed_with_ties(wanted: list[bool]) -> str:
    from tests.browser import seed_with_rounds

    return seed_with_rounds(wanted)
