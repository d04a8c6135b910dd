"""``alhambra-pbem``: serve the API, run workers, create games, migrate, export and import
the database, print the OpenAPI document, keep the translations' catalogs.

    alhambra-pbem serve --host 127.0.0.1 --port 8000 [--workers 2] [--threads 8] [--no-worker]
    alhambra-pbem worker [--queues mail,webhooks] [--no-dispatch] [--burst]
    alhambra-pbem mail-in [--recipient ADDR] [--sender ADDR] < message
    alhambra-pbem mail-in --listen HOST:PORT
    alhambra-pbem create-game --seat Ann:ann@example.org --seat Bob --open 1
    alhambra-pbem migrate
    alhambra-pbem export [--output games.jsonl]
    alhambra-pbem import [games.jsonl]
    alhambra-pbem backup /var/backups/alhambra/2026-12-05
    alhambra-pbem restore /var/backups/alhambra/2026-12-05
    alhambra-pbem openapi > openapi/openapi.json
    alhambra-pbem catalogs [update|check]
    alhambra-pbem reports [--all] [--json] | reports close ID | reports log
    alhambra-pbem hide-message GAME MESSAGE_ID
    alhambra-pbem suspend HANDLE [--reason TEXT] | unsuspend HANDLE
    alhambra-pbem ban ADDRESS [--reason TEXT] | unban ADDRESS

Settings come from the environment (service/settings.py, docs/configuration.md); ``--db``
and ``--public-url`` override ``ALHAMBRA_DB`` and ``PUBLIC_URL``; ``DATABASE_URL``
chooses PostgreSQL instead of the SQLite file.
``serve`` brings the database's schema up to date, then serves the API with one worker
beside it (mail, reminders, deadlines, webhooks: see workers/) and, when ``REDIS_URL`` is
unset, a private Redis server for it, and with ``MAIL_IN_LISTEN`` set, the SMTP listener
of ``mail-in``; each is started again if it dies (with back-off), and all stop with the
server. ``serve --no-worker`` serves the API alone, for
hosts whose workers run elsewhere (``alhambra-pbem worker``). ``mail-in`` plays the
replies to the game's mails (workers/mail_in.py): one message on standard input (pipe
delivery from a mail server), or an SMTP server.
The moderation commands (``reports``, ``hide-message``, ``suspend``, ``ban`` and their
undoing: service/moderation.py) act on the database as its operator, each logged in its
``moderation_log`` (``reports log``) with the operator's name (``--by``, default the
system user's).
``migrate`` is the one step that changes a PostgreSQL database's schema (API and worker
processes refuse a database at another schema than theirs); a SQLite file is migrated
by whichever process opens it first.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from email_validator import EmailNotValidError
from flask import Flask

from . import backup, catalogs, logs, metrics, times
from .app import create_app, openapi_document
from .errors import DomainError
from .i18n import say
from .moderation import Moderation
from .process import host_port, wait_for_port
from .schemas import normal_address
from .settings import Settings, SettingsError
from .store import SchemaTooNew, SchemaTooOld, describe, open_store
from .store.moderation import Report
from .transfer import TransferError, export_games, import_games


def _settings(args: argparse.Namespace) -> Settings:
    """The environment's settings with the command line's --db and --public-url."""
    return Settings.from_env(database=getattr(args, "db", None),
                             public_url=getattr(args, "public_url", None))


def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    from workers.embedded import Background

    settings = _settings(args)
    if not settings.public_url:
        settings = settings.replace(public_url=f"http://{host_port(args.host, args.port)}")
    logs.configure(settings)
    # A server that crashed a moment ago: its workers let go of the port within seconds.
    if not args.dev and not wait_for_port(args.host, args.port):
        logging.getLogger("alhambra.serve").warning(
            "%s is still in use", host_port(args.host, args.port))
    # The schema and the secret key, before the worker and the API's processes open them.
    _migrate(settings)
    _ = settings.secret_key  # a SQLite host's key file is made here, once
    metrics.reset(settings)  # no process of this server has counted yet
    background = Background(settings.data_dir, {**os.environ, **settings.environ()},
                            worker=not args.no_worker, mail_in=settings.mail_in_listen)
    serve_pid = os.getpid()
    try:
        # the API counts its rate limits in the same Redis as the worker's queue, and
        # /health checks it
        settings = settings.replace(redis_url=background.start())
        return _serve_api(args, settings, on_stop=background.halt)
    finally:
        # gunicorn's workers are forks of this process and leave by SystemExit through
        # here: only serve itself stops what it started
        if os.getpid() == serve_pid:
            background.stop()


def gunicorn_settings(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    """gunicorn's settings for ``serve``: threaded workers (gunicorn_worker.py: gthread
    whose open streams hold no thread), so that a slow client holds one thread for a few
    seconds at most, never a whole worker; a control socket of this server's own, in its
    data folder."""
    return {"bind": host_port(args.host, args.port), "workers": args.workers,
            "worker_class": "service.gunicorn_worker.ApiWorker", "threads": args.threads,
            "timeout": 30, "graceful_timeout": 20, "keepalive": 5,
            "control_socket": str(settings.data_dir / "gunicorn.ctl"),
            "accesslog": "-" if args.access_log else None}


def _on_signals(on_stop: Callable[[], None]) -> Callable[[Any], None]:
    """A gunicorn ``when_ready`` hook: a stop signal to the master first calls
    ``on_stop`` (nothing beside the API is started again from then on), then gunicorn's
    own handler."""
    def when_ready(server: Any) -> None:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
            previous = signal.getsignal(signum)

            def handler(sig: int, frame: Any, previous: Any = previous) -> None:
                on_stop()
                if callable(previous):
                    previous(sig, frame)
            signal.signal(signum, handler)
    return when_ready


def _serve_api(args: argparse.Namespace, settings: Settings,
               on_stop: Callable[[], None]) -> int:
    if args.dev:
        create_app(settings).run(host=args.host.strip("[]"), port=args.port, threaded=True)
        return 0
    from gunicorn.app.base import BaseApplication

    class Server(BaseApplication):
        def load_config(self) -> None:
            for name, value in gunicorn_settings(args, settings).items():
                self.cfg.set(name, value)
            self.cfg.set("when_ready", _on_signals(on_stop))
            self.cfg.set("child_exit", lambda server, worker: metrics.process_gone(worker.pid))

        def load(self) -> Flask:
            return create_app(settings)

    Server().run()
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from workers.main import run_from_args

    return run_from_args(args)


def cmd_mail_in(args: argparse.Namespace) -> int:
    from workers.mail_in import run_from_args

    return run_from_args(args, _settings(args))


def cmd_send_digests(args: argparse.Namespace) -> int:
    """The players' daily digests now: those whose hour it is (``--now``: all), once a
    day each (workers/digest.py)."""
    from workers.context import Context
    from workers.digest import send_digests

    ctx = Context(_settings(args))
    try:
        for email, result in send_digests(ctx, every_hour=args.now).items():
            print(f"{email}: {result}")
    finally:
        ctx.close()
    return 0


def cmd_create_game(args: argparse.Namespace) -> int:
    app = create_app(_settings(args))
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


def _migrate(settings: Settings) -> tuple[int, int]:
    store = open_store(settings, check_schema=False)
    try:
        return store.migrate()
    finally:
        store.close()


def cmd_migrate(args: argparse.Namespace) -> int:
    settings = _settings(args)
    before, after = _migrate(settings)
    change = f"from {before} to {after}" if before != after else f"{after}, up to date"
    print(f"{describe(settings)}: schema version {change}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    settings = _settings(args)
    store = open_store(settings)
    try:
        if args.output and args.output != "-":
            with open(args.output, "w", encoding="utf-8") as out:
                n = export_games(store, out)
        else:
            n = export_games(store, sys.stdout)
    finally:
        store.close()
    print(f"exported {n} games from the {describe(settings)}", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    settings = _settings(args)
    store = open_store(settings)
    try:
        if args.file and args.file != "-":
            with open(args.file, encoding="utf-8") as lines:
                result = import_games(store, lines)
        else:
            result = import_games(store, sys.stdin)
    finally:
        store.close()
    print(f"imported {len(result.added)} games into the {describe(settings)}"
          + (f"; {len(result.skipped)} were there already" if result.skipped else ""),
          file=sys.stderr)
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    settings = _settings(args)
    made = backup.backup(settings, Path(args.path))
    print(f"backed up {made['games']} games (schema {made['schema']}) and the key "
          f"({made['key']}) of the {describe(settings)} into {args.path}", file=sys.stderr)
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    settings = _settings(args)
    restored = backup.restore(settings, Path(args.path))
    _, after = _migrate(settings)
    print(f"restored {restored['games']} games from {args.path} into the "
          f"{describe(settings)}, schema version {after}", file=sys.stderr)
    return 0


def _operator(args: argparse.Namespace, act: Callable[[Moderation], int]) -> int:
    """Run ``act`` with the moderation of the settings' database (its app, as the API
    has it: the same takeover bots, the same key), its log lines on standard error."""
    settings = _settings(args)
    logs.configure(settings, stream=sys.stderr)
    app = create_app(settings)
    try:
        return act(app.extensions["alhambra_moderation"])
    except DomainError as exc:
        print(f"alhambra-pbem: {say(exc.detail, 'en')}", file=sys.stderr)
        return 1
    finally:
        app.extensions["alhambra"].store.close()


def _one_line(text: str | None, most: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= most else text[:most - 1] + "…"


def _report_line(r: Report) -> dict[str, Any]:
    """A report as ``reports`` shows it."""
    if r.message_id is not None:
        target = f"message {r.game_id}/{r.message_id} by {r.message_sender or 'the host'}"
        if r.target_handle:
            target += f" ({r.target_handle})"
    else:
        target = f"player {r.target_handle or r.target}"
    return {"id": r.id, "at": times.to_text(r.created_at),
            "reporter": r.reporter_handle or r.reporter, "target": target,
            "reason": r.reason, "message": r.message_text,
            "closed": times.to_text(r.closed_at) if r.closed_at else None,
            "closed_by": r.closed_by}


def cmd_reports(args: argparse.Namespace) -> int:
    """The operator's queue: the open reports (``--all``: closed too), ``close ID``, or
    ``log``: the operators' actions."""
    def act(m: Moderation) -> int:
        if args.action == "close":
            if args.id is None:
                print("alhambra-pbem: reports close needs the report's ID", file=sys.stderr)
                return 2
            if not m.close_report(args.id, args.by):
                print(f"alhambra-pbem: no open report {args.id}", file=sys.stderr)
                return 1
            print(f"closed report {args.id}")
        elif args.action == "log":
            for e in m.entries(args.limit):
                print("\t".join((times.to_text(e.at), e.actor, e.action, e.target,
                                 _one_line(e.detail, 80))))
        else:
            found = [_report_line(r) for r in m.reports(closed=args.all)]
            if args.json:
                print(json.dumps(found, indent=2, ensure_ascii=False))
            elif not found:
                print("no open reports", file=sys.stderr)
            for r in [] if args.json else found:
                closed = f" [closed {r['closed']} by {r['closed_by']}]" if r["closed"] else ""
                print(f"#{r['id']}\t{r['at']}\tby {r['reporter']}\t{r['target']}\t"
                      f"reason: {_one_line(r['reason'], 80)}{closed}")
                if r["message"] is not None:
                    print(f"\t\"{_one_line(r['message'], 120)}\"")
        return 0
    return _operator(args, act)


def cmd_hide_message(args: argparse.Namespace) -> int:
    def act(m: Moderation) -> int:
        m.hide_message(args.game, args.message_id, args.by)
        print(f"message {args.message_id} of game {args.game} hidden from every reader")
        return 0
    return _operator(args, act)


def cmd_suspend(args: argparse.Namespace) -> int:
    def act(m: Moderation) -> int:
        if args.command == "unsuspend":
            done = m.unsuspend(args.handle, args.by)
            print(f"{args.handle}: suspension lifted" if done else
                  f"{args.handle} was not suspended")
            return 0
        taken = m.suspend(args.handle, args.reason, args.by)
        print(f"{args.handle}: suspended; a bot took its seat over in {len(taken)} running "
              f"games" + (f" ({', '.join(taken)})" if taken else ""))
        return 0
    return _operator(args, act)


def cmd_ban(args: argparse.Namespace) -> int:
    try:
        address = normal_address(args.address)
    except EmailNotValidError as exc:
        print(f"alhambra-pbem: {args.address!r} is no address: {exc}", file=sys.stderr)
        return 2

    def act(m: Moderation) -> int:
        if args.command == "unban":
            print(f"{address}: ban lifted" if m.unban(address, args.by) else
                  f"{address} was not banned")
        else:
            print(f"{address}: banned (no sign-in)" if m.ban(address, args.reason, args.by)
                  else f"{address} was banned already")
        return 0
    return _operator(args, act)


def cmd_catalogs(args: argparse.Namespace) -> int:
    return catalogs.run(args)


def cmd_openapi(args: argparse.Namespace) -> int:
    app = create_app(Settings(database=":memory:", state_cache_size=0))
    print(json.dumps(openapi_document(app), indent=2, sort_keys=True))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="alhambra-pbem", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="serve the REST API (gunicorn)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=8,
                   help="threads per worker process (requests served at once, each)")
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

    p = sub.add_parser("mail-in", help="play the replies to the game's mails: one message "
                       "on standard input, or an SMTP server (--listen)")
    from workers.mail_in import add_arguments as mail_in_arguments

    mail_in_arguments(p)
    p.add_argument("--db")
    p.set_defaults(func=cmd_mail_in)

    p = sub.add_parser("send-digests", help="mail the players on the digest whose UTC hour "
                       "it is their daily list of games waiting for them (workers run it "
                       "every minute)")
    p.add_argument("--now", action="store_true",
                   help="every player on the digest, whatever its hour (still once a day)")
    p.add_argument("--db", help="the SQLite file (default $ALHAMBRA_DATA/alhambra.db)")
    p.set_defaults(func=cmd_send_digests)

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

    p = sub.add_parser("migrate", help="bring the database's schema up to date")
    p.add_argument("--db", help="the SQLite file (default $ALHAMBRA_DATA/alhambra.db)")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("export", help="write every game with all its rows as JSON lines")
    p.add_argument("--output", "-o", help="the file (default: standard output)")
    p.add_argument("--db", help="the SQLite file (default $ALHAMBRA_DATA/alhambra.db)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="add the games of an export (skipping games "
                       "already there)")
    p.add_argument("file", nargs="?", help="the export (default: standard input)")
    p.add_argument("--db", help="the SQLite file (default $ALHAMBRA_DATA/alhambra.db)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("backup", help="copy the SQLite database (safe while serving) and "
                       "the seats' key into a new folder")
    p.add_argument("path", help="the backup's folder (new, or empty)")
    p.add_argument("--db", help="the SQLite file (default $ALHAMBRA_DATA/alhambra.db)")
    p.set_defaults(func=cmd_backup)

    p = sub.add_parser("restore", help="put a backup into a data folder that holds no game")
    p.add_argument("path", help="the backup's folder")
    p.add_argument("--db", help="the SQLite file (default $ALHAMBRA_DATA/alhambra.db)")
    p.set_defaults(func=cmd_restore)

    p = sub.add_parser("catalogs", help="the translations: extract, update and compile the "
                       "message catalogs (update), or list what is out of date (check)")
    catalogs.add_arguments(p)
    p.set_defaults(func=cmd_catalogs)
    try:
        operator = getpass.getuser()
    except (OSError, KeyError):  # no user name in the environment or the system
        operator = "operator"
    p = sub.add_parser("reports", help="the moderation queue: the open reports, 'close ID', "
                       "or 'log' (every operator's action)")
    p.add_argument("action", nargs="?", choices=("list", "close", "log"), default="list")
    p.add_argument("id", nargs="?", type=int, help="the report to close")
    p.add_argument("--all", action="store_true", help="closed reports too")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.add_argument("--limit", type=int, default=100, help="log: the last this many")
    p.set_defaults(func=cmd_reports)
    p = sub.add_parser("hide-message", help="hide a table-talk message from every reader "
                       "(kept in the database with who hid it)")
    p.add_argument("game")
    p.add_argument("message_id", type=int)
    p.set_defaults(func=cmd_hide_message)
    for name, text in (("suspend", "suspend an account (handle or address): its tokens "
                        "stop, it cannot sign in, bots play its running games' seats"),
                       ("unsuspend", "lift an account's suspension")):
        p = sub.add_parser(name, help=text)
        p.add_argument("handle", help="the account's handle (or address)")
        if name == "suspend":
            p.add_argument("--reason", help="why (kept in the log)")
        p.set_defaults(func=cmd_suspend)
    for name, text in (("ban", "refuse every sign-in of an address"),
                       ("unban", "lift an address's ban")):
        p = sub.add_parser(name, help=text)
        p.add_argument("address")
        if name == "ban":
            p.add_argument("--reason", help="why (kept in the log)")
        p.set_defaults(func=cmd_ban)
    for name in ("reports", "hide-message", "suspend", "unsuspend", "ban", "unban"):
        p = sub.choices[name]
        p.add_argument("--db", help="the SQLite file (default $ALHAMBRA_DATA/alhambra.db)")
        p.add_argument("--by", default=operator, help="the operator's name in the log "
                       f"(default the system user's: {operator})")
    p = sub.add_parser("openapi", help="print the OpenAPI document")
    p.set_defaults(func=cmd_openapi)

    args = parser.parse_args(argv)
    os.umask(0o077)  # the database, the key, mails with links: readable by their owner only
    try:
        code: int = args.func(args)
        return code
    except (SettingsError, SchemaTooNew, SchemaTooOld, TransferError,
            backup.BackupError) as exc:
        print(f"alhambra-pbem: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
