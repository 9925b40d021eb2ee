"""Simulated studies that check the report's significance tests keep their error rate.

:func:`simulate_rows` draws the result rows of a study with the layout of the paper's
experiments — a knob swept over three levels at two sizes (Table 6), construction order
against shuffled (§5.3), fillers against the core and a matched total (§5.2), and the
duplication layouts, each also shuffled (§5.4) — from a logistic model in which every
formula has its own difficulty:

    P(success) = logistic(model + template(model) + formula + effect · arm)

``formula`` is drawn once per formula from N(0, ``formula_sd``²) and is shared by every
model, template and sample that answers it: this is the formula-to-formula variation
that makes models and templates answering one formula dependent measurements. A derived
variant (a shuffled, duplicated or filler formula) keeps its origin's difficulty plus
its own N(0, (``formula_sd`` / 2)²): a particular shuffle may make a formula harder for
every model. With ``effect = 0`` nothing the tests ask about matters (the null
hypothesis); with ``effect > 0`` success rises with the knob level, by ``effect`` on the
logit scale from the lowest level to the highest, and the first arm of each comparison
gains ``effect``.

:func:`rejection_rates` runs every test a report prints
(:func:`~twosat_formal.report.content.report_tests`) on many simulated studies and
counts how often each kind of test has p < α: under the null hypothesis, the type-I
error rate; with an effect, the power. ``python -m twosat_formal.report.nullsim
[--studies N]`` prints the table of ``docs/reports.md``.

Examples
--------
>>> rows = simulate_rows(NullDesign(formulas=2, models=1, templates=1), seed=0)
>>> sorted({r["kind"] for r in rows})
['duplication', 'fillers', 'order', 'sweep']
"""

from __future__ import annotations

import argparse
import math
import random
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from twosat_formal.report.content import report_tests

__all__ = ["PAPER_DESIGN", "NullDesign", "kind_of_test", "rejection_rates", "simulate_rows"]


@dataclass(frozen=True)
class NullDesign:
    """The layout of a simulated study and its sources of variation.

    The defaults are the paper's layout: 10 formulas per setting, 6 templates, one
    sample, three knob levels; ``models`` models of spread ``model_sd`` and template
    effects of spread ``template_sd`` per model (logit scale).
    """

    formulas: int = 10
    models: int = 4
    templates: int = 6
    samples: int = 1
    levels: tuple[float, ...] = (0.2, 0.5, 0.8)
    sizes: tuple[int, ...] = (50, 75)
    formula_sd: float = 1.5
    model_sd: float = 1.0
    template_sd: float = 0.5
    effect: float = 0.0


#: The paper's layout with moderate formula variation (formula SD 1.5 on the logit scale).
PAPER_DESIGN = NullDesign()


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


class _Study:
    """Rows of one simulated study, drawn from one random generator."""

    def __init__(self, design: NullDesign, rng: random.Random) -> None:
        self.design = design
        self.rng = rng
        self.rows: list[dict[str, Any]] = []
        self.model_effect = [rng.gauss(0.0, design.model_sd) for _ in range(design.models)]
        self.template_effect = [
            [rng.gauss(0.0, design.template_sd) for _ in range(design.templates)]
            for _ in range(design.models)
        ]
        self.count = 0

    def formula(self) -> float:
        return self.rng.gauss(0.0, self.design.formula_sd)

    def variant(self, origin: float) -> float:
        return origin + self.rng.gauss(0.0, self.design.formula_sd / 2)

    def emit(self, difficulty: float, **design: Any) -> None:
        """Every model's answers to one formula of logit ``difficulty``."""
        self.count += 1
        instance = f"f{self.count}"
        d = self.design
        for m in range(d.models):
            for t in range(d.templates):
                p = _logistic(self.model_effect[m] + self.template_effect[m][t] + difficulty)
                for sample in range(d.samples):
                    right = self.rng.random() < p
                    self.rows.append(
                        {
                            "instance_id": instance,
                            "model": f"m{m}",
                            "template": f"t{t}",
                            "sample": sample,
                            "family": "backbone",
                            "label": "UNSAT",
                            "decision": "UNSAT" if right else "SAT",
                            "decision_correct": right,
                            **design,
                        }
                    )


def simulate_rows(design: NullDesign, *, seed: int) -> list[dict[str, Any]]:
    """The result rows of one simulated study (see the module's docstring).

    >>> a = simulate_rows(NullDesign(formulas=1, models=1, templates=1), seed=3)
    >>> a == simulate_rows(NullDesign(formulas=1, models=1, templates=1), seed=3)
    True
    """
    study = _Study(design, random.Random(seed))
    effect = design.effect
    low, high = min(design.levels), max(design.levels)
    for clauses in design.sizes:
        for level in design.levels:
            shift = effect * (level - low) / (high - low) if high > low else 0.0
            for r in range(design.formulas):
                study.emit(
                    study.formula() + shift,
                    kind="sweep",
                    clauses=clauses,
                    knob="k",
                    level=level,
                    replicate=r,
                    arm="base",
                )
    size = design.sizes[0]
    for r in range(design.formulas):
        common = {"clauses": size, "replicate": r}
        base = study.formula()
        study.emit(base + effect, kind="order", arm="construction", **common)
        study.emit(study.variant(base), kind="order", arm="shuffled", shuffled=True, **common)
        core = study.formula()
        fill = {"kind": "fillers", "knob": "k", "level": 0.5, **common}
        study.emit(study.variant(core) + effect, arm="filler", **fill)
        study.emit(core, arm="core", **fill)
        study.emit(study.formula(), arm="total", **fill)
        single = study.formula()
        arms = {
            "single": single + effect,
            "grouped": study.variant(single),
            "interleaved": study.variant(single),
            "distinct": study.formula(),
        }
        for arm, difficulty in arms.items():
            dup = {"kind": "duplication", "arm": arm, **common}
            study.emit(difficulty + effect, shuffled=False, **dup)
            study.emit(study.variant(difficulty), shuffled=True, **dup)
    return study.rows


def kind_of_test(section: str, label: str) -> str:
    """The kind of a test: its section and its label without the family and size.

    >>> kind_of_test("knob_tests", "backbone · k · |C|=overall")
    'knob_tests: overall'
    >>> kind_of_test("knob_tests", "backbone · k · |C|=50")
    'knob_tests: one size'
    >>> kind_of_test("order_tests", "backbone: construction vs shuffled")
    'order_tests: construction vs shuffled'
    """
    if section == "knob_tests":
        return f"{section}: " + ("overall" if label.endswith("=overall") else "one size")
    return f"{section}: {label.split(': ', 1)[-1]}"


def rejection_rates(
    design: NullDesign,
    studies: int,
    *,
    seed: int = 0,
    alpha: float = 0.05,
    permutations: int = 999,
) -> dict[str, tuple[int, int]]:
    """``{test kind: (p < alpha, tests run)}`` over ``studies`` simulated studies.

    Study ``i`` is drawn with seed ``seed + i``; the raw p-value of every test counts.

    >>> rates = rejection_rates(NullDesign(formulas=3, models=1, templates=1), 2)
    >>> rates["order_tests: construction vs shuffled"][1]
    2
    """
    counts: dict[str, list[int]] = {}
    for i in range(studies):
        rows = simulate_rows(design, seed=seed + i)
        for section, results in report_tests(rows, seed=i, permutations=permutations).items():
            for result in results:
                if not result.defined:
                    continue
                entry = counts.setdefault(kind_of_test(section, result.label), [0, 0])
                entry[0] += result.p_value < alpha
                entry[1] += 1
    return {kind: (hits, total) for kind, (hits, total) in sorted(counts.items())}


def _table(designs: Sequence[tuple[str, NullDesign]], studies: int) -> str:
    results = [(name, rejection_rates(design, studies)) for name, design in designs]
    kinds = sorted({kind for _, rates in results for kind in rates})
    lines = ["| test | " + " | ".join(name for name, _ in results) + " |"]
    lines.append("|---" * (len(results) + 1) + "|")
    for kind in kinds:
        cells = []
        for _, rates in results:
            hits, total = rates.get(kind, (0, 0))
            cells.append(f"{100 * hits / total:.1f} %" if total else "—")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the rejection rates of ``docs/reports.md`` (``--studies N``, default 1,000).

    A bad argument exits with status 2 and a one-line message (``argparse``).
    """
    parser = argparse.ArgumentParser(
        prog="python -m twosat_formal.report.nullsim",
        description="Rejection rates of the report's tests on simulated studies.",
    )
    parser.add_argument("--studies", type=_positive, default=1000, help="studies per design")
    args = parser.parse_args(argv)
    designs = [
        ("null, formula SD 0.5", replace(PAPER_DESIGN, formula_sd=0.5)),
        ("null, formula SD 1.5 (paper layout)", PAPER_DESIGN),
        ("null, formula SD 3", replace(PAPER_DESIGN, formula_sd=3.0)),
        ("effect 1, formula SD 1.5", replace(PAPER_DESIGN, effect=1.0)),
        ("effect 2, formula SD 1.5", replace(PAPER_DESIGN, effect=2.0)),
    ]
    with warnings.catch_warnings():
        # nearly constant differences in a simulated study: the t-test says so, and the
        # study counts as it comes out
        warnings.simplefilter("ignore", RuntimeWarning)
        print(_table(designs, args.studies))
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not positive")
    return value


if __name__ == "__main__":
    raise SystemExit(main())
