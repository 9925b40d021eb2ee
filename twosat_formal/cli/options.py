"""Options that several commands share, declared once (Typer ``Annotated`` aliases)."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = [
    "ApiKeyEnvOption",
    "BaseUrlOption",
    "ConcurrencyOption",
    "ProgressOption",
    "TemplatesOption",
]

BaseUrlOption = Annotated[
    str | None,
    typer.Option("--base-url", help="API root of openai/ models (default: $OPENAI_BASE_URL)."),
]
ApiKeyEnvOption = Annotated[
    str | None,
    typer.Option(
        "--api-key-env",
        help="Environment variable that holds the API key (default: OPENAI_API_KEY). "
        "The key itself is never stored or printed.",
    ),
]
ConcurrencyOption = Annotated[
    int, typer.Option("--concurrency", min=1, help="Requests in flight at most.")
]
ProgressOption = Annotated[
    bool, typer.Option("--progress/--no-progress", help="Show a progress bar on stderr.")
]
TemplatesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--template", metavar="NAME", help="Verbalization template, repeatable (default: all 6)."
    ),
]
