"""GitHub itself: the REST client, the webhook events, the Actions environment, the ``github``
settings of a config, and the context of one job. The only code that knows GitHub's wire
format; it knows nothing of reviews or flows."""
