"""``certify``: re-check every record of a dataset, the CI gate for certified data.

For each instance record (one JSON object per line):

``record``
    The line is JSON, the fields are present and typed, the schema version is known,
    the DIMACS parses and agrees with ``num_vars`` / ``num_clauses``.
``solve:scc``, ``solve:pysat``, ``solve:z3``
    Each of the three backends solves the formula and agrees with the stored label
    (the ``scc`` backend once per record: when the re-derived record below holds
    exactly the stored DIMACS text, re-deriving solved that very formula with it, and
    its label is the backend's answer).
``certificate``
    The stored certificate (model or contradiction cycle) is re-checked by the
    certificate checker and certifies the stored label.
``regenerate``
    A root record of a registered family is drawn again from its family, params and
    seed, and must give the same id, formula and label (a root built from a formula
    file, ``base_file``, is drawn again from that file, which must be a regular file
    in the dataset's own folder: a record makes certify read no other file).
``transform[i]:<operator>``
    A derived record (``base_id`` set) starts from its root, found in the dataset or
    regenerated; each step is re-run from its recorded parameters and seed, must
    reproduce every recorded field, and its relation is proven again with Z3.
``transforms``
    The replayed chain gives exactly the record's formula.
``twin``
    A minimal twin (``twin_of`` set): its source is in the dataset, the recorded change
    is the one the source's structure gives, it turns the source into the twin, the two
    are one clause apart, and PySAT gives them opposite labels (see
    :func:`twosat_formal.evaluate.diagnostics.twins.check_twin`).
``measures``
    The record's structural measures (shortest contradiction cycle, longest implication
    path, strong components, backbone, deepest forced literal, proof length) equal those
    derived again from its formula by code that shares nothing with the engine's
    (:func:`twosat_formal.solve.measures_check.check_measures`). This is the one place they
    are computed: the record is re-derived without them
    (:func:`twosat_formal.solve.measures.unmeasured`), holding the values checked here. A
    record without ``measures`` (written before records carried them) makes no claim,
    and the check is not run.

A prompt record (``instance_id`` and ``text``) is checked by ``record`` and
``roundtrip``: its text must parse back to its instance's formula (the instance must be
in the dataset), see :func:`twosat_formal.verbalize.check_roundtrip`. A story record
of the LLM story verbalizer (``"kind": "story"``) is checked by ``record`` and
``roundtrip``: its stored proof must say ``proved`` and its recovered formula must be
proven again to equal its instance's formula (the instance must be in the dataset),
see :func:`twosat_formal.verbalize.story.check_story_record`. A one-line
``perturb`` document (``base_dimacs``, ``dimacs``, ``transforms``) is checked by
``record`` and the transform checks.

The package is in three parts: :mod:`~twosat_formal.certify.index` reads and parses
each line once and finds the records each refers to; the checks of one record by its
kind (:mod:`~twosat_formal.certify.checks`, a table from kind to checks, with
:mod:`~twosat_formal.certify.instance` for instance records) run on an executor
(:mod:`~twosat_formal.certify.dataset`); the report is
:mod:`~twosat_formal.certify.results` and its CI forms
:mod:`~twosat_formal.certify.report`. ``--cache`` is :mod:`~twosat_formal.certify.cache`.

Examples
--------
>>> import json, tempfile, os
>>> from twosat_formal.make.generators import generate
>>> inst = generate("implication-cycle", clauses=10, seed=1)
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "data.jsonl")
...     with open(path, "w") as out:
...         _ = out.write(inst.to_json() + "\\n" + "{oops\\n")
...     report = certify_file(path)
>>> report.records, report.ok, [(f.line, f.check) for f in report.failures]
(2, False, [(2, 'record')])
"""

from __future__ import annotations

from twosat_formal.certify.checks import certify_record
from twosat_formal.certify.dataset import (
    SMALL_DATASET,
    certify_file,
    certify_files,
    revalidate_stories,
)
from twosat_formal.certify.instance import BACKENDS
from twosat_formal.certify.results import CertifyReport, CheckFailure, RecordLog, RecordResult

__all__ = [
    "BACKENDS",
    "SMALL_DATASET",
    "CertifyReport",
    "CheckFailure",
    "RecordLog",
    "RecordResult",
    "certify_file",
    "certify_files",
    "certify_record",
    "revalidate_stories",
]
