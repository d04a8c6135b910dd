"""alhambra-pbem workers: the outbox relay, RQ jobs (mail, reminders, deadlines,
webhooks), the embedded Redis launcher and the worker entry point.

One move, after the service has committed it with its outbox row:

    outbox row ──relay.py──▶ RQ job jobs.process_batch(game, from, to)
                               ├─ mail.py: "game started", "your turn", "timeout", "game over"
                               ├─ enqueue_at: jobs.send_reminder (50%, 90%), jobs.apply_deadline
                               └─ jobs.deliver_webhook per registered URL (retried, backoff)

Every notification is claimed in the store's ``notifications`` table under (game,
version, recipient, kind) before it is sent, so a job run twice sends once. Configuration
is by environment: see service/settings.py.
"""
