"""A small certified dataset for the integration tests, and the CLI run in-process."""

from __future__ import annotations

from pathlib import Path

from cli_support import cli

from twosat_formal.generators import FAMILIES, generate
from twosat_formal.instance import Instance, write_instances
from twosat_formal.prompts import PromptRecord, write_prompts
from twosat_formal.verbalize import TEMPLATES, prompt_record

__all__ = ["cli", "make_dataset", "small_instances"]


def small_instances(per_family: int = 1, clauses: int = 8) -> list[Instance]:
    """``per_family`` small instances of each family but symmetry (SAT and UNSAT)."""
    return [
        generate(family, clauses=clauses, seed=seed)
        for family in FAMILIES.names()
        if family != "symmetry"
        for seed in range(per_family)
    ]


def make_dataset(folder: Path, per_family: int = 1) -> tuple[Path, Path, list[PromptRecord]]:
    """Instances and their prompts (templates in turn, round trips proven), as files."""
    instances = small_instances(per_family)
    templates = TEMPLATES.names()
    prompts = [
        prompt_record(inst.formula, templates[i % len(templates)], instance_id=inst.id, seed=i)
        for i, inst in enumerate(instances)
    ]
    dataset, prompt_file = folder / "dataset.jsonl", folder / "prompts.jsonl"
    write_instances(instances, dataset)
    write_prompts(prompts, prompt_file)
    return dataset, prompt_file, prompts
