"""What a game adds to the page: its panel on the table page, or a page of its own.

A game's bundle names a factory (``Game.page``) that takes a :class:`PageContext`
and returns a :class:`PagePanel`: a Flask blueprint (its routes, templates and
static files), and how the table page shows it — a template included in the
side column, a script that renders the game's part of each update, a link in
the header. The table page itself (:mod:`web.app`) knows no game.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from flask import Blueprint, Response

from companion.referee import Referee

Guard = Callable[[], Response | None]


class Act(Protocol):
    """The page's wrapper of a change (:func:`web.app.create_app`'s ``act``): the guard, the
    JSON body (only ``fields`` in it, when given), refusals as 4xx."""

    def __call__(self, fn: Callable[[dict[str, Any]], Any],
                 fields: Collection[str] | None = None) -> Callable[[], Response]: ...


@dataclass(frozen=True)
class PageContext:
    """What a panel may use: the referee, the page's guard for changes, and its options."""

    referee: Referee | None
    guard: Guard
    token: str
    act: Act | None = None  # wraps a change: guard, JSON body, refusals as 4xx
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PagePanel:
    blueprint: Blueprint
    url_prefix: str = ""
    template: str | None = None  # included in the table page's side column
    script: str | None = None  # the blueprint's static script the table page loads
    link: tuple[str, str] | None = None  # (text, href) in the table page's header
