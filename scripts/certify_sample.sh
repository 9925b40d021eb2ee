#!/usr/bin/env bash
# CI gate: build a sample dataset (every family, every perturbation operator, every
# template, symbolic edits, premise edits included, and the prompts of edited
# instances, prompts that ask for contradiction chains, minimal twins) and refuse it
# unless `twosat-formal certify` passes.
set -euo pipefail
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$out"
tf() { twosat-formal "$@"; }
for family in implication-cycle equivalence-core backbone mono-bridge; do
  tf generate "$family" --clauses 20 --count 2 --seed 7 --no-progress >> roots.jsonl
done
tf generate symmetry --set base=backbone --clauses 20 --count 1 --seed 7 --no-progress >> roots.jsonl
tf generate implication-cycle --clauses 10 --count 1 --seed 8 --no-progress > unsat.jsonl
tf perturb roots.jsonl --op reorder --op rename --op flip --op duplicate --seed 3 --no-base --out chain.jsonl
tf perturb roots.jsonl --op filler --seed 4 --no-base --out filler.jsonl
tf perturb unsat.jsonl --op filler --set over=existing --seed 5 --no-base --out filler-unsat.jsonl
tf perturb roots.jsonl --op bridge-move --seed 6 --no-base --out bridge.jsonl 2>/dev/null \
  || tf generate mono-bridge --clauses 20 --count 1 --seed 9 --no-progress \
     | tf perturb - --op bridge-move --seed 6 --no-base --out bridge.jsonl
tf edit roots.jsonl --mode cumulative --max-edits 2 --seed 1 --no-base --out edits-cumulative.jsonl
tf edit roots.jsonl --mode individual --keep both --max-edits 2 --seed 2 --no-base --out edits-individual.jsonl
tf edit roots.jsonl --mode individual --premise-edits --max-edits 1 --seed 3 --no-base --out edits-premise.jsonl
tf verbalize edits-cumulative.jsonl --template all --seed 1 --out prompts-edits.jsonl
tf verbalize chain.jsonl --template all --seed 1 --out prompts.jsonl
tf verbalize unsat.jsonl --template all --seed 2 --ask-cycle --out prompts-cycle.jsonl
tf certify roots.jsonl unsat.jsonl chain.jsonl filler.jsonl filler-unsat.jsonl bridge.jsonl \
  edits-cumulative.jsonl edits-individual.jsonl edits-premise.jsonl prompts.jsonl \
  prompts-cycle.jsonl prompts-edits.jsonl --jobs 2
tf pairs roots.jsonl --seed 1 --out pairs.jsonl
tf certify pairs.jsonl --jobs 2
