"""One flask-smorest blueprint per resource; ``create_app`` registers ``BLUEPRINTS``."""

from . import games, meta, play, records, webhooks

BLUEPRINTS = [games.blp, play.blp, webhooks.blp, records.blp, meta.blp]
