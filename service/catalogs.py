"""The message catalogs, kept with pybabel: ``alhambra-pbem catalogs [update|check]``.

``update`` runs ``pybabel extract`` over the code (``babel.cfg``: the ``msg``/``nmsg``/
``pmsg`` sentences, the mails' ``{% trans %}`` blocks, the web pages' ``_``/``ngettext``/
``pgettext``) into ``service/translations/messages.pot``, then ``pybabel update`` (or
``init`` for a new language) of each language's ``messages.po`` and ``pybabel compile``
of its ``messages.mo``. The compiled catalogs are committed, so that ``pip install -e .``
runs with no step of its own; ``check`` (and tests/service/test_catalogs.py) says what
is out of date: a message of the code missing from the template, a translation missing,
fuzzy or with other placeholders than its message id, a ``.mo`` older than its ``.po``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from .i18n import CATALOGS, DOMAIN, LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = CATALOGS / f"{DOMAIN}.pot"
KEYWORDS = ("msg", "nmsg:1,2", "pmsg:1c,2", "pmsg_id:1c,2")
_PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}|%\((\w+)\)s")


def _pybabel(*args: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *args])  # type: ignore[no-untyped-call]


def extract(out: Path) -> None:
    """``pybabel extract`` of the code's messages into ``out`` (a .pot file)."""
    keywords = [arg for k in KEYWORDS for arg in ("-k", k)]
    with contextlib.chdir(ROOT):  # locations relative to the repository
        _pybabel("extract", "-F", "babel.cfg", *keywords, "--add-location=file",
                 "--sort-by-file", "--no-wrap", "-c", "TRANSLATORS:",
                 "--project=alhambra-pbem", "-o", str(out), ".")


def po_path(lang: str) -> Path:
    return CATALOGS / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def update() -> None:
    """Extract the template, bring every language's catalog up to date, compile them."""
    extract(TEMPLATE)
    for lang in LANGUAGES[1:]:
        command = "update" if po_path(lang).exists() else "init"
        extra = ["--no-fuzzy-matching", "--ignore-obsolete", "--no-wrap"] \
            if command == "update" else ["--no-wrap"]
        _pybabel(command, "-i", str(TEMPLATE), "-d", str(CATALOGS), "-D", DOMAIN, "-l",
                 lang, *extra)
    _pybabel("compile", "-d", str(CATALOGS), "-D", DOMAIN)


def read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def _key(m: Message) -> tuple[str | None, str]:
    return m.context, m.id if isinstance(m.id, str) else m.id[0]


def placeholders(text: str) -> set[str]:
    """The ``{name}`` and ``%(name)s`` placeholders of a message."""
    return {a or b for a, b in _PLACEHOLDER.findall(text)}


def problems() -> list[str]:
    """What is out of date in the catalogs, one line each (empty: nothing)."""
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "fresh.pot"
        extract(fresh)
        code = {_key(m) for m in read(fresh) if m.id}
    template = {_key(m): m for m in read(TEMPLATE) if m.id}
    for key in sorted(code - set(template), key=str):
        out.append(f"messages.pot lacks {key[1]!r} (run: alhambra-pbem catalogs update)")
    for key in sorted(set(template) - code, key=str):
        out.append(f"messages.pot has {key[1]!r}, which the code no longer says")
    for lang in LANGUAGES[1:]:
        out += _language_problems(lang, template)
    return out


def _language_problems(lang: str, template: dict[tuple[str | None, str], Message]
                       ) -> list[str]:
    path = po_path(lang)
    if not path.exists():
        return [f"{lang}: no catalog {path}"]
    catalog = {_key(m): m for m in read(path) if m.id}
    out = []
    for key, m in template.items():
        t = catalog.get(key)
        strings = [s or "" for s in (t.string if isinstance(t.string, tuple | list)
                                     else [t.string])] if t else []
        if t is None or not all(strings) or t.fuzzy:
            out.append(f"{lang}: no translation of {key[1]!r}"
                       + (f" (context {key[0]!r})" if key[0] else ""))
            continue
        ids = m.id if isinstance(m.id, tuple | list) else [m.id]
        wanted = set().union(*(placeholders(i) for i in ids if i))
        optional = {"n"} if len(ids) > 1 else set()  # a plural form may say "one" in words
        for s in strings:
            got = placeholders(s)
            if got - wanted or wanted - optional - got:
                out.append(f"{lang}: {s!r} has placeholders {sorted(got)}, its message id "
                           f"{sorted(wanted)}")
    mo = path.with_suffix(".mo")
    compiled = io.BytesIO()
    write_mo(compiled, read(path))  # as pybabel compile writes it
    if not mo.exists() or mo.read_bytes() != compiled.getvalue():
        out.append(f"{lang}: {mo.name} is not {path.name} compiled (run: alhambra-pbem "
                   "catalogs update)")
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("update", "check"), nargs="?", default="check",
                        help="update: extract, update and compile every catalog; check "
                             "(the default): list what is out of date")


def run(args: argparse.Namespace) -> int:
    if args.action == "update":
        update()
    found = problems()
    for line in found:
        print(line)
    return 1 if found else 0
