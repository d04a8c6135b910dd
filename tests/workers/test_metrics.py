"""Metrics for the people who run it (issue 38): a running ``serve`` with
``ALHAMBRA_METRICS_TOKEN``, a scripted game played through it, then ``GET /metrics``
parsed with prometheus-client's own parser: the requests and moves counted by the API's
gunicorn workers and the due work run by the worker process add up in one scrape."""

from __future__ import annotations

import http.client as http_client

from prometheus_client.parser import text_string_to_metric_families

from tests.support import Http, start_serve, stop_serve, wait_until

TOKEN = "scrape-token-0123456789"
MOVES = "/games/<string:game_id>/moves"


def scrape(http: Http) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = http.get("/metrics", {"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(r.data.decode())
            for s in family.samples}


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_a_scripted_game_is_counted_across_processes(tmp_path):
    proc, base, log = start_serve(tmp_path, "--workers", "2",
                                  env={"ALHAMBRA_METRICS_TOKEN": TOKEN,
                                       "ALHAMBRA_STREAM_SECONDS": "5"})
    http = Http(base)
    try:
        wait_until(lambda: proc.poll() is not None or _healthy(http), 30, 0.1, "the API")
        assert http.get("/metrics").status_code == 401
        assert http.get("/metrics", {"Authorization": "Bearer wrong"}).status_code == 401
        r = http.post("/games", {"seats": [{"name": "Ann", "email": "ann@example.org"},
                                           {"name": "Bob", "email": "bob@example.org"}]})
        assert r.status_code == 201
        created = r.get_json()
        game_id, tokens = created["game_id"], [s["token"] for s in created["seats"]]
        played = 0
        for _ in range(12):
            doc = http.get(f"/games/{game_id}").get_json()
            auth = {"Authorization": f"Bearer {tokens[doc['current_seat']]}"}
            legal = http.get(f"/games/{game_id}/legal-moves", auth).get_json()
            r = http.post(f"/games/{game_id}/moves", {
                "version": doc["version"], "move": legal["moves"][0]["notation"]}, auth)
            assert r.status_code == 201, r.get_json()
            played += 1
        stale = http.post(f"/games/{game_id}/moves", {"version": 1, "move": "take 1"}, auth)
        assert stale.status_code == 409
        assert http.post("/players/sign-in", {"email": "cid@example.org"}).status_code == 202
        # the worker process sends the started mails (into the outbox: no SMTP_URL)
        wait_until(lambda: value(scrape(http), "alhambra_due_runs_total", kind="started",
                                 result="sent") >= 2, 30, 0.2, "the started mails counted")
        samples = scrape(http)
        # a live stream open is counted while it lasts (in the process holding it)
        host, port = base.rsplit("/", 1)[1].split(":")
        conn = http_client.HTTPConnection(host, int(port), timeout=10)
        conn.request("GET", f"/games/{game_id}/stream")
        stream = conn.getresponse()
        assert stream.status == 200 and stream.readline().startswith(b"retry:")
        assert value(scrape(http), "alhambra_open_streams") == 1
        conn.close()
        wait_until(lambda: value(scrape(http), "alhambra_open_streams") == 0, 30, 0.2,
                   "the stream counted as ended")
    finally:
        stop_serve(proc, [], log)
    assert value(samples, "alhambra_http_requests_total", route=MOVES, method="POST",
                 status="201") == played
    assert value(samples, "alhambra_http_request_seconds_count", route=MOVES) == played + 1
    assert value(samples, "alhambra_moves_total", outcome="played") == played
    assert value(samples, "alhambra_moves_total", outcome="version_conflict") == 1
    assert value(samples, "alhambra_sign_ins_total", step="requested") == 1
    assert value(samples, "alhambra_games", status="active") == 1
    assert ("alhambra_due_waiting", (("kind", "started"),)) not in samples  # all sent
    # counted in several processes' files, added up by the one scrape
    files = {f.name.rsplit("_", 1)[-1] for f in (tmp_path / "data" / "metrics").glob("*.db")}
    assert len(files) >= 2, files


def _healthy(http: Http) -> bool:
    try:
        return http.get("/health").status_code == 200
    except OSError:
        return False


def test_the_grafana_dashboard_reads_only_metrics_the_service_counts():
    """deploy/grafana-dashboard.json: valid JSON whose queries name metrics of
    service/metrics.py (or their histogram and counter series)."""
    import json
    import re

    from tests.support import ROOT

    dashboard = json.loads((ROOT / "deploy" / "grafana-dashboard.json").read_text())
    source = (ROOT / "service" / "metrics.py").read_text()
    declared = set(re.findall(r'(?:Counter|Histogram|Gauge(?:MetricFamily)?)\("(alhambra_[a-z_]+)"',
                              source))
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = {re.sub(r"_(total|bucket|count|sum)$", "", n)
            for e in exprs for n in re.findall(r"alhambra_[a-z_]+", e)}
    assert exprs and used <= declared, used - declared
    assert used == declared  # and every metric has its panel
