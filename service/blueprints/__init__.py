"""One flask-smorest blueprint per resource; ``create_app`` registers ``BLUEPRINTS``."""

from . import (
    account,
    games,
    me_stream,
    meta,
    notify,
    play,
    players,
    records,
    stream,
    talk,
    webhooks,
)

#: The API's blueprints (documented in the OpenAPI document).
BLUEPRINTS = [games.blp, play.blp, stream.blp, talk.blp, webhooks.blp, records.blp,
              meta.blp, players.blp, me_stream.blp, account.blp, notify.blp]
