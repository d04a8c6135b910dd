"""/health names each part (issue 10.5): the database, the due-work lag, Redis and the
workers; 503 when one is down. (With real processes: tests/workers/test_serve_watch.py.)"""

from __future__ import annotations

from datetime import timedelta

from service import create_app, times
from service.blueprints.common import redis_client
from service.settings import Settings
from tests.support import fake_clock, new_game
from workers.redis_server import free_port


def test_without_redis_the_api_reports_what_it_can_see(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, database=str(tmp_path / "a.db")))
    r = app.test_client().get("/health")
    assert r.status_code == 200
    doc = r.get_json()
    assert doc["status"] == "ok"
    assert doc["parts"]["database"] == {"status": "ok"}
    assert doc["parts"]["due"] == {"status": "ok", "lag_seconds": 0.0}
    assert doc["parts"]["mail"] == {"status": "ok", "failed_last_hour": 0}
    assert doc["parts"]["redis"]["status"] == "unknown"


def test_due_work_nobody_claims_and_a_redis_that_is_gone_are_down(tmp_path, monkeypatch):
    settings = Settings(data_dir=tmp_path, database=str(tmp_path / "a.db"),
                        health_max_lag=0.2, redis_url=f"redis://127.0.0.1:{free_port()}/0")
    app = create_app(settings)
    client = app.test_client()
    clock = fake_clock(monkeypatch, times.now())
    new_game(client, 2)  # its mails are due: no worker claims them
    clock.now += timedelta(seconds=0.3)
    r = client.get("/health")
    with app.app_context():  # /health must answer: its Redis client waits half a second
        kwargs = redis_client().connection_pool.connection_kwargs
    assert kwargs["socket_timeout"] == kwargs["socket_connect_timeout"] == 0.5
    assert r.status_code == 503
    parts = r.get_json()["parts"]
    assert parts["due"]["status"] == "down" and parts["due"]["lag_seconds"] >= 0.3
    assert parts["redis"]["status"] == "down" and "Connection" in parts["redis"]["error"]
    assert r.get_json()["status"] == "down"
