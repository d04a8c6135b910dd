"""gunicorn settings for the API: ``gunicorn -c deploy/gunicorn.conf.py 'service:create_app()'``.

The workers run separately (deploy/systemd/alhambra-worker@.service, or the Procfile's
``worker``); the API never talks to Redis, it only writes the outbox. With PostgreSQL
(``DATABASE_URL``) any number of hosts run this behind a proxy (deploy/nginx/).
"""

import multiprocessing
import os

bind = os.environ.get("ALHAMBRA_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", min(4, multiprocessing.cpu_count() * 2)))
threads = 1
worker_class = "sync"
timeout = 30
graceful_timeout = 20
keepalive = 5
max_requests = 10000
max_requests_jitter = 1000
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def on_starting(server):
    """Open the store once before the workers fork: a SQLite file is created or migrated
    here; a PostgreSQL database at another schema stops the server at once, with the
    message saying to run ``alhambra-pbem migrate``."""
    from service import create_app

    create_app().extensions["alhambra"].store.close()
