"""`python -m toolgate` is the `toolgate` command."""

from .cli import app

app()
