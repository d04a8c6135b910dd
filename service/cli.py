"""``alhambra-pbem``: serve the API, create games, print the OpenAPI document.

    alhambra-pbem serve --host 127.0.0.1 --port 8000 [--workers 2]
    alhambra-pbem create-game --seat Ann:ann@example.org --seat Bob --open 1
    alhambra-pbem openapi > openapi/openapi.json

The data folder is ``$ALHAMBRA_DATA`` (default ``./data``); ``--db`` overrides the file.
"""

from __future__ import annotations

import argparse
import json
import sys
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
    config = _config(args)
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

    # Create the schema once before the workers fork.
    create_app(config).extensions["alhambra"].store.close()
    Server().run()
    return 0


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
    p.set_defaults(func=cmd_serve)

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
