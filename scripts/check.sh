#!/usr/bin/env bash
# The whole test suite: lint, format, types, tests (doctests included), benchmarks at a small size.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== ruff check"; ruff check .
echo "== ruff format --check"; ruff format --check .
echo "== mypy"; mypy
echo "== import layers (pyproject.toml [tool.importlinter])"; lint-imports
echo "== function length and complexity (scripts/complexity.py --check)"; python scripts/complexity.py --check >/dev/null || python scripts/complexity.py --check
echo "== record schemas current (docs/schema)"; python -m twosat_formal.evaluate.schemas --check
echo "== benchmarks (small)"
for bench in benchmarks/bench_*.py; do
  [ -e "$bench" ] || continue
  echo "-- $bench"; python "$bench" --small
done
echo "== certify gate (sample dataset: every family, operator, template, edit)"
./scripts/certify_sample.sh
echo "== pytest"
python -m pytest -n "${TEST_WORKERS:-2}" -q
