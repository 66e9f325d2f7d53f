"""Play by SMS through Twilio: the text grammar, short texts, the webhook.

See docs/sms.md for the grammar as players see it, and `webhook.create_sms` /
`webhook.routes` for wiring the adapter into the ASGI app.
"""
