"""The installable page (issue 37) in Chromium: the web app manifest is valid JSON with a
name, icons and a start URL; the service worker registers; /me offers a signed-in
player to turn notifications on; offline, a page shows "no connection"."""

from __future__ import annotations

import json
import urllib.request

from .conftest import watch_errors


def test_the_manifest_names_the_app_its_icons_and_where_it_starts(server):
    with urllib.request.urlopen(server.url + "/manifest.webmanifest", timeout=10) as resp:
        assert resp.headers["Content-Type"].startswith("application/manifest+json")
        manifest = json.load(resp)
    assert manifest["name"] and manifest["start_url"] == "/me"
    assert {"192x192", "512x512"} <= {i["sizes"] for i in manifest["icons"]}
    for icon in manifest["icons"]:
        with urllib.request.urlopen(server.url + icon["src"], timeout=10) as resp:
            assert resp.headers["Content-Type"].split(";")[0] == icon["type"]
            assert resp.read(8)[:4] in (b"\x89PNG", b"<svg")


def test_the_service_worker_registers_and_me_offers_notifications(server, new_context):
    players = server.app.extensions["alhambra_players"]
    from service.players import sign_in_code

    request = players.request_sign_in("push.web@example.org")
    code = sign_in_code(server.app.extensions["alhambra"].secret_key, request.id)
    context = new_context()
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/me?poll=5#code={code}")
    page.wait_for_selector("#prefs-box:not([hidden])")
    button = page.locator("#push-on")
    button.wait_for(state="visible")  # hidden until this device's state is known
    assert button.inner_text() == "Turn on notifications"
    assert page.locator("#push-state").inner_text()
    scope = page.evaluate("""async () => {
        const reg = await navigator.serviceWorker.ready;
        return reg.scope;
    }""")
    assert scope == server.url + "/"
    assert page.evaluate("() => fetch('/sw.js').then(r => r.headers.get('content-type'))") \
        .startswith("text/javascript")

    # the service worker keeps "no connection" for a page opened offline
    page.wait_for_function("async () => !!(await caches.match('/offline'))")
    context.set_offline(True)
    offline = context.new_page()
    offline.goto(f"{server.url}/lobby-offline-check")
    assert offline.locator("h1").inner_text() == "No connection"
    context.set_offline(False)
    assert errors == []
