"""The web client's pages as HTTP answers: static, packaged, with security headers."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from service import create_app
from service.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "service" / "web"


@pytest.fixture
def client(tmp_path):
    app = create_app(Settings(database=str(tmp_path / "pages.db")))
    yield app.test_client()
    app.extensions["alhambra"].store.close()


@pytest.mark.parametrize("path", ["/", "/play/0123456789abcdef", "/docs", "/rules",
                                  "/tournament/tnm_0123456789abcdef"])
def test_pages_are_html_with_security_headers(client, path):
    r = client.get(path)
    assert r.status_code == 200 and r.mimetype == "text/html"
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "no-referrer"
    html = r.get_data(as_text=True)
    assert "<script>" not in html and "http://" not in html and "https://" not in html


def test_scripts_are_modules_served_as_javascript(client):
    html = client.get("/play/0123456789abcdef").get_data(as_text=True)
    assert '<script type="module" src="/assets/js/play.js">' in html
    for name in sorted(p.name for p in (WEB / "js").glob("*.js")):
        r = client.get(f"/assets/js/{name}")
        assert r.status_code == 200 and r.mimetype in ("text/javascript",
                                                       "application/javascript"), name


def test_rules_page_renders_the_markdown_with_rule_anchors(client):
    html = client.get("/rules").get_data(as_text=True)
    assert '<a id="A-4.3"></a>' in html and "<h2" in html and "# " not in html


def test_join_links_open_the_play_page_with_the_token_in_the_fragment(client):
    created = client.post("/games", json={"seats": [{"name": "Ann"}, {"name": "Bob"}]})
    doc = created.get_json()
    for seat in doc["seats"]:
        assert seat["join_url"] == (f"http://localhost/play/{doc['game_id']}"
                                    f"#token={seat['token']}")
    assert client.get(f"/play/{doc['game_id']}").status_code == 200


def test_every_web_file_is_in_the_package_data():
    """The wheel must hold the pages (and docs/rules.md, through the link service/web/rules.md)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["service"]
    files = [p.relative_to(ROOT / "service").as_posix() for p in WEB.rglob("*") if p.is_file()]
    assert files

    def packaged(name: str) -> bool:  # setuptools' globs: '*' stays inside one folder
        parts = name.split("/")
        return any(len(parts) == len(pat.split("/")) and all(
            fnmatch.fnmatch(a, b) for a, b in zip(parts, pat.split("/"), strict=True))
            for pat in patterns)

    missing = [f for f in files if not packaged(f)]
    assert missing == []
    assert (WEB / "rules.md").resolve() == (ROOT / "docs" / "rules.md").resolve()
