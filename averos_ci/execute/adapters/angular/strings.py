"""The @angular-devkit/core ``strings`` helpers the Averos schematics use to name files."""

from __future__ import annotations

import re

_DECAMELIZE = re.compile(r"([a-z\d])([A-Z])")
_DASHERIZE = re.compile(r"[ _]")
_CAMELIZE = re.compile(r"(-|_|\.|\s)+(.)?")


def decamelize(text: str) -> str:
    return _DECAMELIZE.sub(r"\1_\2", text).lower()


def dasherize(text: str) -> str:
    return _DASHERIZE.sub("-", decamelize(text))


def camelize(text: str) -> str:
    out = _CAMELIZE.sub(lambda m: m.group(2).upper() if m.group(2) else "", text)
    return re.sub(r"^([A-Z])", lambda m: m.group(1).lower(), out)


def classify(text: str) -> str:
    return ".".join(
        "".join(w[:1].upper() + w[1:] for w in camelize(part).split())  # devkit: per '.' part
        for part in text.split(".")
    )
