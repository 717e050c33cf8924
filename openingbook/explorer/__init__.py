"""The browser explorer: a local web server, its JSON API and its page.

:mod:`openingbook.explorer.server` answers ``/api/analyze`` from an
:class:`openingbook.engine.Engine` and serves the page in ``static/`` (plain
HTML, CSS and JavaScript, no build step); ``openingbook explore``
(:mod:`openingbook.cli.explore`) starts it. See ``docs/EXPLORER.md``.
"""

from __future__ import annotations

from openingbook.explorer.server import (
    STATIC_DIR,
    Explorer,
    ExplorerLimits,
    make_server,
)

__all__ = ["STATIC_DIR", "Explorer", "ExplorerLimits", "make_server"]
