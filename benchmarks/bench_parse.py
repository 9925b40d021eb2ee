"""Benchmark: reading DIMACS into a Formula, against PySAT's reader and the Lark parser.

Writes a random 2-CNF (clause/variable ratio 1.0) to a temporary DIMACS file at 10^5
and 10^6 clauses, and times ``read_formula`` (the one DIMACS reader, ``parse_dimacs``,
on the file's bytes) against ``pysat.formula.CNF(from_file=...)``; then times
``parse_dimacs`` against Lark's LALR parser of the grammar of record
(``grammar/dimacs.lark``, to its parse tree alone) on a smaller text. Prints best-of-3
times and their ratios; asserts nothing.

Usage::

    python benchmarks/bench_parse.py            # 10^5 and 10^6 clauses
    python benchmarks/bench_parse.py --small    # 10^4 clauses, a few seconds (CI)
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _common import bench_parser, best_of, random_2cnf  # type: ignore[import-not-found,unused-ignore]
from pysat.formula import CNF

from twosat_formal.io import parse_dimacs, read_formula, write_dimacs
from twosat_formal.io._parsing import lark_parser

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print the ratios."""
    args = bench_parser(__doc__, "10^4 clauses only (for CI)", repeat=3, seed=2024).parse_args(argv)
    sizes = [10_000] if args.small else [100_000, 1_000_000]
    lark_size = 1_000 if args.small else 10_000

    print("DIMACS read into a Formula: read_formula vs pysat CNF(from_file=...)")
    print(f"{'clauses':>10} {'read_formula s':>15} {'pysat s':>10} {'ratio':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            formula = random_2cnf(size, args.seed)
            path = Path(tmp, f"random-{size}.cnf")
            path.write_text(write_dimacs(formula, provenance={"seed": args.seed}))
            assert read_formula(path) == formula  # same formula, not only fast
            ours = best_of(args.repeat, lambda p=path: read_formula(p))  # type: ignore[misc]
            pysat = best_of(args.repeat, lambda p=path: CNF(from_file=str(p)))  # type: ignore[misc]
            print(f"{size:>10} {ours:>15.4f} {pysat:>10.4f} {ours / pysat:>7.3f}")

    text = write_dimacs(random_2cnf(lark_size, args.seed))
    grammar = lark_parser("dimacs.lark")
    ours = best_of(args.repeat, lambda: parse_dimacs(text))
    lark = best_of(args.repeat, lambda: grammar.parse(text))
    print("\nThe same text read by parse_dimacs and parsed by Lark (the grammar of record)")
    print(f"{'clauses':>10} {'parse_dimacs s':>15} {'lark s':>10} {'ratio':>7}")
    print(f"{lark_size:>10} {ours:>15.4f} {lark:>10.4f} {ours / lark:>7.3f}")


if __name__ == "__main__":
    main()
