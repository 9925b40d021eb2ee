"""Where the benchmark meets the tools its users already run.

* :mod:`~twosat_formal.integrations.rows`: one flat row per prompt (text, expected
  answer, label, formula, entity map), the shape every export shares, and the scorer
  that judges an answer from a row alone;
* :mod:`~twosat_formal.integrations.answers`, :mod:`~twosat_formal.integrations.rescore`
  and :mod:`~twosat_formal.integrations.batch`: answers produced elsewhere (JSON
  Lines, an OpenAI Batch API output file, lm-eval ``--log_samples``) scored with the
  judgement code of ``eval``, and Batch API request files to produce them;
* :mod:`~twosat_formal.integrations.exports`: ``export``, one registry of formats:
  :mod:`~twosat_formal.integrations.hf` (Hugging Face ``datasets``),
  :mod:`~twosat_formal.integrations.dimacs` (SAT solvers) and
  :mod:`~twosat_formal.integrations.task_files` (inspect and lm-evaluation-harness
  task folders, which run :mod:`~twosat_formal.integrations.inspect` and
  :mod:`~twosat_formal.integrations.lm_eval`);
* :mod:`~twosat_formal.integrations.inspect_registry`: what the ``inspect_ai`` entry
  point registers, the task ``twosat_formal/twosat`` and the reference reasoners as
  inspect models ``twosat/<name>`` (:mod:`~twosat_formal.integrations.inspect_models`);
* :mod:`~twosat_formal.integrations.reasoning_gym`: the datasets of
  :mod:`twosat_formal.integrations.gym` registered with reasoning-gym.

The third-party packages come with the ``integrations`` extra
(``pip install 'twosat-formal[integrations]'``); :func:`require` imports one or fails
with one line that names the extra.

Examples
--------
>>> require("json", "reading JSON").__name__
'json'
>>> require("no_such_module_here", "export --to nowhere")
Traceback (most recent call last):
...
twosat_formal.errors.MissingExtraError: export --to nowhere needs no_such_module_here: \
pip install 'twosat-formal[integrations]'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from twosat_formal.errors import MissingExtraError

__all__ = ["EXTRA", "PACKAGES", "require"]

#: The extra that installs every integration's dependencies.
EXTRA = "integrations"

#: Import name → distribution name of the packages the extra installs.
PACKAGES: dict[str, str] = {
    "datasets": "datasets",
    "pyarrow": "pyarrow",
    "inspect_ai": "inspect-ai",
    "lm_eval": "lm-eval",
    "reasoning_gym": "reasoning-gym",
}


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` for ``feature``, or raise :class:`MissingExtraError` naming the extra.

    Parameters
    ----------
    module:
        The import name (``"datasets"``, ``"inspect_ai"``...).
    feature:
        What needs it, as the user asked for it (``"export --to hf"``).
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        package = PACKAGES.get(module, module)
        raise MissingExtraError(
            f"{feature} needs {package}: pip install 'twosat-formal[{EXTRA}]'"
        ) from None
