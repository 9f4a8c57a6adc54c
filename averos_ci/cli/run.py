"""Placeholder: this command's module is being written."""

from __future__ import annotations
