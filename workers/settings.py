"""The workers' configuration, read from the environment (a stable interface).

========================  =============================================================
``REDIS_URL``             the Redis (or Valkey) server of the queues; ``serve`` starts a
                          private one when it is unset
``SMTP_URL``              ``smtp://[user:password@]host:port[?starttls=1]`` (or
                          ``smtps://``); unset: mails are written to ``<data>/outbox/``
``MAIL_FROM``             the sender (default ``alhambra-pbem <alhambra@localhost>``)
``PUBLIC_URL``            the base of links in mails (default ``http://127.0.0.1:8000``)
``ALHAMBRA_DATA``         the data folder (default ``./data``)
``ALHAMBRA_DB``           the SQLite file (default ``$ALHAMBRA_DATA/alhambra.db``)
``ALHAMBRA_REMINDERS``    fractions of the time per move for reminders (``0.5,0.9``)
``ALHAMBRA_WEBHOOK_RETRIES``  seconds between webhook attempts (``10,60,300,1800,7200``)
``ALHAMBRA_RELAY_INTERVAL``   seconds between outbox polls (``0.2``)
``ALHAMBRA_SWEEP_INTERVAL``   seconds between checks for overdue deadlines (``30``)
``ALHAMBRA_QUEUE``        the RQ queue name (``alhambra``)
========================  =============================================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.replace(";", ",").split(",") if x.strip())


@dataclass
class Settings:
    data_dir: Path = Path("data")
    database: Path = Path("data/alhambra.db")
    redis_url: str | None = None
    smtp_url: str | None = None
    mail_from: str = "alhambra-pbem <alhambra@localhost>"
    public_url: str = "http://127.0.0.1:8000"
    reminders: tuple[float, ...] = (0.5, 0.9)
    webhook_retries: tuple[int, ...] = (10, 60, 300, 1800, 7200)
    batch_retries: tuple[int, ...] = (5, 30, 120, 600, 1800, 3600, 3600, 3600)
    relay_interval: float = 0.2
    sweep_interval: float = 30.0
    sweep_grace: float = 10.0
    queue: str = "alhambra"
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def outbox_dir(self) -> Path:
        return self.data_dir / "outbox"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        data = Path(env.get("ALHAMBRA_DATA") or "./data")
        s = cls(data_dir=data, database=Path(env.get("ALHAMBRA_DB") or data / "alhambra.db"))
        s.redis_url = env.get("REDIS_URL") or None
        s.smtp_url = env.get("SMTP_URL") or None
        s.mail_from = env.get("MAIL_FROM") or s.mail_from
        s.public_url = (env.get("PUBLIC_URL") or s.public_url).rstrip("/")
        if env.get("ALHAMBRA_REMINDERS") is not None:
            s.reminders = tuple(f for f in _floats(env["ALHAMBRA_REMINDERS"]) if 0 < f < 1)
        if env.get("ALHAMBRA_WEBHOOK_RETRIES"):
            s.webhook_retries = tuple(max(0, round(x))
                                      for x in _floats(env["ALHAMBRA_WEBHOOK_RETRIES"]))
        if env.get("ALHAMBRA_RELAY_INTERVAL"):
            s.relay_interval = max(0.01, float(env["ALHAMBRA_RELAY_INTERVAL"]))
        if env.get("ALHAMBRA_SWEEP_INTERVAL"):
            s.sweep_interval = max(0.1, float(env["ALHAMBRA_SWEEP_INTERVAL"]))
        if env.get("ALHAMBRA_SWEEP_GRACE"):
            s.sweep_grace = max(0.0, float(env["ALHAMBRA_SWEEP_GRACE"]))
        s.queue = env.get("ALHAMBRA_QUEUE") or s.queue
        return s
