"""alhambra-pbem workers: the claiming loop of due work, RQ jobs (mails, reminders,
answers, webhooks, bots' moves, deadlines), mail in, the embedded Redis launcher and the
worker entry point.

One move, after the service has committed it with its due rows (service/due.py):

    due rows ──dispatch.py (claim, lease)──▶ RQ job jobs.run_due(row, attempt)
                 ├─ mail.py: "game started", "your turn", "timeout", "game over", reminders
                 ├─ webhooks.py: one call per registered URL
                 └─ Games.play_bot / Games.time_out: a move, whose append plans the next

Each row is run by the attempt that claimed it last and finished with its result; a
row whose worker died is claimed again when its lease runs out. Configuration is by
environment: see service/settings.py.
"""
