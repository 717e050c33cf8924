"""Perfect play, or play of a known level, where agents are trained and compared.

The face of the adapters (``docs/AGENTS.md``); each name is loaded from its module
when first asked for, so importing this package loads no environment package but
Gymnasium's registry, and that only where Gymnasium is installed (to register
:data:`ENV_ID`):

* :class:`ConnectFourEnv` (:mod:`.gymnasium_env`): a Gymnasium single-agent
  environment, also ``gymnasium.make(ENV_ID, opponent=...)``;
* :class:`OpponentWrapper` (:mod:`.pettingzoo_env`): PettingZoo's ``connect_four_v3``
  with one of its agents played by the library;
* :class:`OpenSpielBot` (:mod:`.openspiel_bot`): a ``pyspiel.Bot`` for OpenSpiel's
  ``connect_four``;
* :func:`kaggle_agent`, :func:`kaggle_agent_at` (:mod:`.connectx`): Kaggle ConnectX
  agents (no package needed);
* :func:`shared_oracle` (:mod:`.shared`): the oracle they share.

>>> import openingbook.agents
>>> openingbook.agents.ENV_ID
'openingbook/ConnectFour-v0'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openingbook.agents.connectx import kaggle_agent, kaggle_agent_at
    from openingbook.agents.gymnasium_env import ConnectFourEnv
    from openingbook.agents.openspiel_bot import OpenSpielBot
    from openingbook.agents.pettingzoo_env import OpponentWrapper
    from openingbook.agents.shared import shared_oracle

#: The Gymnasium id of :class:`ConnectFourEnv`.
ENV_ID = "openingbook/ConnectFour-v0"

#: Each name of the face and the module it comes from.
_HOMES = {
    "ConnectFourEnv": "gymnasium_env",
    "OpponentWrapper": "pettingzoo_env",
    "OpenSpielBot": "openspiel_bot",
    "kaggle_agent": "connectx",
    "kaggle_agent_at": "connectx",
    "shared_oracle": "shared",
}

__all__ = [
    "ENV_ID",
    "ConnectFourEnv",
    "OpenSpielBot",
    "OpponentWrapper",
    "kaggle_agent",
    "kaggle_agent_at",
    "shared_oracle",
]


def __getattr__(name: str) -> Any:
    # a name is loaded from its module when first asked for (PEP 562): the environment
    # packages are imported only by the adapter that needs them
    if name in _HOMES:
        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _register_with_gymnasium() -> None:
    """Register :data:`ENV_ID` where Gymnasium is installed (its registry only: the
    environment's module is loaded by ``gymnasium.make``)."""
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # no Gymnasium: nothing to register with
        return

    if ENV_ID not in registry:
        register(id=ENV_ID, entry_point=f"{__name__}.gymnasium_env:ConnectFourEnv")


_register_with_gymnasium()
