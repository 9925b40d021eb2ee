"""The file names of an experiment folder, in one place.

=====================  =========================================================
:data:`DATASET_FILE`   every instance (JSON Lines)
:data:`DESIGN_FILE`    the condition of each instance
:data:`PROMPTS_FILE`   every prompt
:data:`STORIES_FILE`   story records of the LLM story verbalizer (optional)
:data:`STORE_FILE`     the run store (SQLite)
:data:`RESULTS_FILE`   the store exported, one row per sample
:data:`MANIFEST_FILE`  versions, seeds, spec, models, sampling, digests
:data:`REPORT_MD`      the report, with :data:`REPORT_HTML`, :data:`REPORT_JSON`
                       and the figures in :data:`FIGURES_DIR`
:data:`DIAGNOSTICS_DIR`  ``bench``'s side run (an experiment folder of its own)
=====================  =========================================================
"""

from __future__ import annotations

__all__ = [
    "DATASET_FILE",
    "DESIGN_FILE",
    "DIAGNOSTICS_DIR",
    "FIGURES_DIR",
    "MANIFEST_FILE",
    "PROMPTS_FILE",
    "REPORT_HTML",
    "REPORT_JSON",
    "REPORT_MD",
    "RESULTS_FILE",
    "STORE_FILE",
    "STORIES_FILE",
]

DATASET_FILE = "dataset.jsonl"
DESIGN_FILE = "design.jsonl"
PROMPTS_FILE = "prompts.jsonl"
STORIES_FILE = "stories.jsonl"
STORE_FILE = "results.sqlite"
RESULTS_FILE = "results.jsonl"
MANIFEST_FILE = "manifest.json"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"
REPORT_JSON = "report.json"
FIGURES_DIR = "figures"
DIAGNOSTICS_DIR = "diagnostics"
