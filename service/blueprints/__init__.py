"""One flask-smorest blueprint per resource; ``create_app`` registers ``BLUEPRINTS``."""

from . import (
    account,
    games,
    invitations,
    me_stream,
    meta,
    moderation,
    notify,
    play,
    players,
    records,
    stream,
    talk,
    tournaments,
    webhooks,
)

#: The API's blueprints (documented in the OpenAPI document).
BLUEPRINTS = [games.blp, play.blp, stream.blp, talk.blp, webhooks.blp, records.blp,
              meta.blp, players.blp, me_stream.blp, account.blp,
              invitations.blp, moderation.blp, notify.blp, tournaments.blp]
