"""gunicorn settings for the API: ``gunicorn -c deploy/gunicorn.conf.py 'service:create_app()'``.

The workers run separately (deploy/systemd/alhambra-worker@.service, or the Procfile's
``worker``); the API writes each move's due work, and uses Redis (``REDIS_URL``) only to count
its rate limits and open streams. With PostgreSQL
(``DATABASE_URL``) any number of hosts run this behind a proxy (deploy/nginx/).
"""

import multiprocessing
import os

from service.settings import Settings

settings = Settings.from_env()  # a bad value stops gunicorn here, naming its variable
bind = settings.bind  # ALHAMBRA_BIND; IPv6: "[::1]:8000", "[::]:8000"
workers = int(os.environ.get("WEB_CONCURRENCY", min(4, multiprocessing.cpu_count() * 2)))
# Threads: a slow client holds one thread (gunicorn hands a connection to a thread once
# it has data, for a few seconds at most), never a whole worker; behind nginx
# (deploy/nginx/), which buffers requests and answers, slow clients never reach us.
# service/gunicorn_worker.py is gunicorn's gthread worker whose open /stream connections
# hold no thread (one thread per worker serves them all; capped by
# ALHAMBRA_STREAMS_PER_CLIENT and ALHAMBRA_STREAMS_MAX), that ends them at once on
# SIGTERM (the pages reconnect) and that dies with the master, even after a kill -9.
worker_class = "service.gunicorn_worker.ApiWorker"
threads = settings.threads  # ALHAMBRA_THREADS
timeout = 30
graceful_timeout = 20  # for requests under way; open streams end at once
keepalive = 5
max_requests = 10000
max_requests_jitter = 1000
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# One control socket per server (gunicornc), beside its data rather than in $HOME.
control_socket = str(settings.data_dir / "gunicorn.ctl")
os.umask(0o077)  # the database, the key, outbox mails: readable by their owner only


def on_starting(server):
    """Open the store once before the workers fork: a SQLite file is created or migrated
    here; a PostgreSQL database at another schema stops the server at once, with the
    message saying to run ``alhambra-pbem migrate``."""
    from service import create_app

    create_app().extensions["alhambra"].store.close()


def child_exit(server, worker):
    """A worker's counts stay in the metrics' folder; its live values go (metrics.py)."""
    from service import metrics

    metrics.process_gone(worker.pid)
