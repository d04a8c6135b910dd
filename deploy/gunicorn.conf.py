"""gunicorn settings for the API: ``gunicorn -c deploy/gunicorn.conf.py 'service:create_app()'``.

The workers run separately (deploy/systemd/alhambra-worker.service, or the Procfile's
``worker``); the API never talks to Redis, it only writes the outbox.
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
    """Create the database schema once, before the workers fork."""
    from service import create_app

    create_app().extensions["alhambra"].store.close()
