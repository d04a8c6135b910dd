"""``alhambra-pbem``: serve the API, run workers, create games, print the OpenAPI document.

    alhambra-pbem serve --host 127.0.0.1 --port 8000 [--workers 2] [--no-worker]
    alhambra-pbem worker [--no-scheduler] [--no-relay] [--burst]
    alhambra-pbem create-game --seat Ann:ann@example.org --seat Bob --open 1
    alhambra-pbem openapi > openapi/openapi.json

The data folder is ``$ALHAMBRA_DATA`` (default ``./data``); ``--db`` overrides the file.
``serve`` also runs one worker (mail, reminders, deadlines, webhooks: see workers/) and,
when ``REDIS_URL`` is unset, a private Redis server for it; both stop with the server.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .app import create_app, openapi_document


def _config(args: argparse.Namespace) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if getattr(args, "db", None):
        config["DATABASE"] = args.db
    if getattr(args, "public_url", None):
        config["PUBLIC_URL"] = args.public_url
    return config


def cmd_serve(args: argparse.Namespace) -> int:
    import logging
    import os

    from workers.embedded import Background

    config = _config(args)
    env = dict(os.environ)
    if args.db:
        env["ALHAMBRA_DB"] = str(Path(args.db).resolve())
    if args.public_url:
        env["PUBLIC_URL"] = args.public_url
    elif not env.get("PUBLIC_URL"):
        env["PUBLIC_URL"] = f"http://{args.host}:{args.port}"
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(process)d %(name)s "
                        "%(levelname)s %(message)s")
    # Create the schema before the worker and the API's processes open the database.
    create_app(config).extensions["alhambra"].store.close()
    background = Background(Path(env.get("ALHAMBRA_DATA") or "./data"), env,
                            worker=not args.no_worker)
    try:
        background.start()
        return _serve_api(args, config)
    finally:
        background.stop()


def _serve_api(args: argparse.Namespace, config: dict[str, Any]) -> int:
    try:
        from gunicorn.app.base import BaseApplication
    except ImportError:  # pragma: no cover - gunicorn is a dependency
        BaseApplication = None
    if BaseApplication is None or args.dev:
        create_app(config).run(host=args.host, port=args.port, threaded=True)
        return 0

    class Server(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"{args.host}:{args.port}")
            self.cfg.set("workers", args.workers)
            self.cfg.set("accesslog", "-" if args.access_log else None)

        def load(self):
            return create_app(config)

    Server().run()
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from workers.main import run_from_args

    return run_from_args(args)


def cmd_create_game(args: argparse.Namespace) -> int:
    app = create_app(_config(args))
    seats: list[dict[str, Any] | None] = []
    for spec in args.seat:
        name, _, email = spec.partition(":")
        seats.append({"name": name, **({"email": email} if email else {})})
    seats += [None] * args.open
    body = {"variant": args.variant, "seats": seats, "time_per_move": args.time_per_move,
            "options": json.loads(args.options)}
    with app.test_client() as client:
        resp = client.post("/games", json=body,
                           base_url=args.public_url or "http://localhost:8000")
    doc = resp.get_json()
    if resp.status_code != 201:
        print(json.dumps(doc, indent=2), file=sys.stderr)
        return 1
    doc.pop("game", None)
    print(json.dumps(doc, indent=2))
    return 0


def cmd_openapi(args: argparse.Namespace) -> int:
    app = create_app({"DATABASE": ":memory:", "STATE_CACHE_SIZE": 0})
    print(json.dumps(openapi_document(app), indent=2, sort_keys=True))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="alhambra-pbem", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="serve the REST API (gunicorn)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--db", help="the SQLite file (default $ALHAMBRA_DATA/alhambra.db)")
    p.add_argument("--public-url", help="base URL of join links")
    p.add_argument("--access-log", action="store_true")
    p.add_argument("--dev", action="store_true", help="Flask's development server instead")
    p.add_argument("--no-worker", action="store_true",
                   help="run no worker beside the API (run 'alhambra-pbem worker' elsewhere)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("worker", help="run a worker: mail, reminders, deadlines, webhooks "
                       "(needs REDIS_URL)")
    from workers.main import add_arguments

    add_arguments(p)
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser("create-game", help="create a game; prints ids, tokens and links")
    p.add_argument("--variant", default="alhambra")
    p.add_argument("--seat", action="append", default=[], metavar="NAME[:EMAIL]",
                   help="a filled seat (repeat)")
    p.add_argument("--open", type=int, default=0, help="number of open seats")
    p.add_argument("--time-per-move", type=int, default=72 * 3600, help="seconds")
    p.add_argument("--options", default="{}", help="variant options as JSON")
    p.add_argument("--db")
    p.add_argument("--public-url")
    p.set_defaults(func=cmd_create_game)

    p = sub.add_parser("openapi", help="print the OpenAPI document")
    p.set_defaults(func=cmd_openapi)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
