"""Phone numbers: E.164 everywhere, masked for the host, absent from public views."""

from __future__ import annotations

import phonenumbers


def e164(raw: str, region: str = "NO") -> str | None:
    """`raw` as E.164 ("+4791234567"), or None if it is no valid number."""
    try:
        number = phonenumbers.parse(raw, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_possible_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def mask(phone: str) -> str:
    """A number as the host may see it: "+4791234567" -> "+47******67"."""
    if len(phone) <= 6:
        return "*" * len(phone)
    return phone[:3] + "*" * (len(phone) - 5) + phone[-2:]


def short_mask(phone: str) -> str:
    """The last two digits only, for lists: "+4791234567" -> "*67"."""
    return "*" + phone[-2:]
