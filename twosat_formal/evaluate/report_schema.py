"""The JSON Schema of ``report.json`` (published as ``docs/schema/report.json``).

``report.json`` holds every number of a report: the summaries, Table 1, the truncation
budgets, the SAT bias by family, the template table, every significance test (with its
unit and Benjamini–Hochberg family), the series every figure draws, and the optional
sections (edits, stories, twins, traces, diagnostics). :func:`report_schema` describes
it; :mod:`twosat_formal.evaluate.schemas` publishes it with the record schemas, and the tests
validate the reports the pipeline writes against it.

Examples
--------
>>> schema = report_schema()
>>> schema["additionalProperties"], "knob_tests" in schema["required"]
(False, True)
"""

from __future__ import annotations

from typing import Any

__all__ = ["report_schema"]

_NUMBER = {"type": ["number", "null"]}
_COUNT = {"type": "integer", "minimum": 0}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _map(values: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": values}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _estimate() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "A mean across formulas (n) of rows (n_obs) with its interval.",
        "required": ["mean", "low", "high", "n", "n_obs", "method", "confidence"],
        "properties": {
            "mean": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "low": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "high": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "n": _COUNT,
            "n_obs": _COUNT,
            "method": {"enum": ["wilson", "t", "bootstrap"]},
            "confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        },
        "additionalProperties": False,
    }


def _test() -> dict[str, Any]:
    return {
        "type": "object",
        "description": (
            "A significance test: its name, what it compared, its Benjamini–Hochberg "
            "family, n (and, where it names one, the unit n counts), statistic, df, "
            "p-value and adjusted p-value."
        ),
        "required": [
            "test",
            "label",
            "family",
            "n",
            "statistic",
            "df",
            "p_value",
            "p_adjusted",
            "note",
        ],
        "properties": {
            "test": {"type": "string"},
            "label": {"type": "string"},
            "family": {"type": "string"},
            "n": _COUNT,
            "statistic": _NUMBER,
            "df": _NUMBER,
            "p_value": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "p_adjusted": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "note": {"type": "string"},
            "unit": {"enum": ["formula"]},
            "models": _COUNT,
            "levels": _COUNT,
            "series": _COUNT,
            "strata": _COUNT,
            "arrangements": _COUNT,
            "exact": {"type": "boolean"},
            "blocks": _COUNT,
            "n_a": _COUNT,
            "n_b": _COUNT,
            "mean_a": _NUMBER,
            "mean_b": _NUMBER,
        },
        "additionalProperties": False,
    }


def _flips() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["pairs", "broken", "fixed", "flips", "rate"],
        "properties": {
            "pairs": _COUNT,
            "broken": _COUNT,
            "fixed": _COUNT,
            "flips": _COUNT,
            "rate": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        },
        "additionalProperties": False,
    }


def _point() -> dict[str, Any]:
    point = _estimate()
    return {
        **point,
        "description": "A point of a curve: its x and the estimate at x.",
        "required": ["x", *point["required"]],
        "properties": {"x": {"type": "number"}, **point["properties"]},
    }


def _summary() -> dict[str, Any]:
    estimates = [
        "accuracy",
        "accuracy_sat",
        "accuracy_unsat",
        "witness",
        "sat_prediction",
        "truncation",
        "consistency",
        "success",
        "lenient_accuracy",
        "lenient_success",
    ]
    return {
        "type": "object",
        "required": ["model", "rows", *estimates, "truncated", "flips", "verbal_flips", "forgiven"],
        "properties": {
            "model": {"type": "string"},
            "rows": _COUNT,
            **{name: _ref("estimate") for name in estimates},
            "truncated": _COUNT,
            "flips": _ref("flips"),
            "verbal_flips": _ref("flips"),
            "forgiven": _COUNT,
        },
        "additionalProperties": False,
    }


def _table1_row() -> dict[str, Any]:
    cell = {
        "type": "object",
        "required": ["sat", "wit", "templates", "samples", "partial"],
        "properties": {
            "sat": _ref("estimate"),
            "wit": _nullable(_ref("estimate")),
            "wit_unsat": _ref("estimate"),
            "templates": _COUNT,
            "samples": _COUNT,
            "partial": {
                "type": "boolean",
                "description": "fewer templates or samples than the row's other cells",
            },
        },
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "required": ["family", "clauses", "label", "cells"],
        "properties": {
            "family": {"type": "string"},
            "clauses": _COUNT,
            "label": {"enum": ["SAT", "UNSAT", "mixed"]},
            "cells": _map(cell),
        },
        "additionalProperties": False,
    }


def _figure_data() -> dict[str, Any]:
    curves = _map({"type": "array", "items": _ref("point")})
    bars = _map(_map(_ref("estimate")))
    names = {
        "size_curves": _map(curves),
        "size_metric_curves": _map(_map(curves)),
        "template_curves": _map(curves),
        "knob_curves": _map(_map(curves)),
        "order_bars": bars,
        "order_model_bars": _map(bars),
        "filler_bars": bars,
        "duplication_bars": bars,
        "edit_curves": curves,
    }
    return {
        "type": "object",
        "description": "The series every figure draws: curves (series → points) and bars.",
        "required": sorted(names),
        "properties": names,
        "additionalProperties": False,
    }


def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``report.json``."""
    tests = {"type": "array", "items": _ref("test")}
    section = {"type": "object", "description": "see docs/reports.md"}
    properties: dict[str, Any] = {
        "title": {"type": "string"},
        "rows": _COUNT,
        "models": {"type": "array", "items": {"type": "string"}},
        "families": {"type": "array", "items": {"type": "string"}},
        "templates": {"type": "array", "items": {"type": "string"}},
        "summaries": {"type": "array", "items": _ref("summary")},
        "failures": _map(_map(_COUNT)),
        "failure_kinds": {"type": "array", "items": {"type": "string"}},
        "budgets": _map({"type": "array", "items": {"type": "integer", "minimum": 1}}),
        "sat_bias_by_family": _map(_map(_ref("estimate"))),
        "template_table": _map(_map(_ref("estimate"))),
        "captions": {
            "type": "object",
            "required": ["grid_knobs", "sweep_knobs", "grid_experiments"],
            "properties": {
                "grid_knobs": {"type": "string"},
                "sweep_knobs": {"type": "string"},
                "grid_experiments": {"type": "array", "items": {"type": "string"}},
            },
            "additionalProperties": False,
        },
        "table1": {"type": "array", "items": _ref("table1_row")},
        "knob_tests": {**tests, "description": "Table 6: permutation tests over formulas"},
        "order_tests": tests,
        "filler_tests": tests,
        "duplication_tests": tests,
        "figure_data": _ref("figure_data"),
        "figures": {"type": "array", "items": {"type": "string"}},
        "notes": {"type": "array", "items": {"type": "string"}},
        "edits": section,
        "stories": section,
        "pairs": {"type": "array", "items": {"type": "object"}},
        "traces": {"type": "array", "items": {"type": "object"}},
        "diagnostics": {"type": "array", "items": {"type": "object"}},
        "strategies": {"type": "array", "items": {"type": "object"}},
        "questions": {"type": "array", "items": {"type": "object"}},
    }
    optional = {"edits", "stories", "pairs", "traces", "diagnostics", "strategies", "questions"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "report.json",
        "description": "Every number of a twosat-formal report (see docs/reports.md).",
        "type": "object",
        "required": sorted(set(properties) - optional),
        "properties": properties,
        "additionalProperties": False,
        "$defs": {
            "estimate": _estimate(),
            "point": _point(),
            "test": _test(),
            "flips": _flips(),
            "summary": _summary(),
            "table1_row": _table1_row(),
            "figure_data": _figure_data(),
        },
    }
