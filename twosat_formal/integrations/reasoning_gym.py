"""The datasets of :mod:`twosat_formal.integrations.gym`, registered with reasoning-gym.

:func:`register` (called when :mod:`twosat_formal.integrations.gym` is imported with reasoning-gym
installed) registers every name of :data:`twosat_formal.integrations.gym.DATASET_NAMES` with its
config class and a curriculum, so ``reasoning_gym.create_dataset("twosat", seed=3,
size=2)`` draws the same items as ``twosat_formal.integrations.gym.create_dataset`` and its
``score_answer`` is :func:`twosat_formal.integrations.gym.score_answer`. A ``seed`` of ``None``
draws a random seed, as reasoning-gym's own datasets do.

Examples
--------
>>> import twosat_formal.integrations.gym
>>> import reasoning_gym
>>> data = reasoning_gym.create_dataset("twosat-backbone", seed=3, size=2, max_clauses=8)
>>> data[1] == twosat_formal.integrations.gym.create_dataset("twosat-backbone", seed=3, size=2,
...                                              max_clauses=8)[1]
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from twosat_formal.integrations import require

if TYPE_CHECKING:
    from twosat_formal.integrations import gym

__all__ = ["register"]


def register(
    names: Sequence[str],
    config_class: Callable[[str], type[gym.TwoSatConfig]],
    dataset_class: type[gym.TwoSatDataset],
    levels: Sequence[gym.CurriculumLevel],
) -> list[str]:
    """Register the datasets that reasoning-gym does not know yet; return their names.

    :mod:`twosat_formal.integrations.gym` calls it with its dataset names, their config classes,
    its dataset class and its curriculum levels (handed in, so that this module does
    not import the one that imports it).
    """
    require("reasoning_gym", "registering the twosat datasets with reasoning-gym")
    from reasoning_gym.coaching.attributes import (
        RangeAttributeDefinition,
        ScalarAttributeDefinition,
    )
    from reasoning_gym.coaching.base_curriculum import BaseCurriculum
    from reasoning_gym.dataset import ProceduralDataset
    from reasoning_gym.factory import DATASETS, register_dataset

    class TwoSatGymDataset(ProceduralDataset):
        """A :class:`twosat_formal.integrations.gym.TwoSatDataset` as a reasoning-gym dataset."""

        def __init__(self, config: gym.TwoSatConfig) -> None:
            super().__init__(config=config, seed=config.seed, size=config.size)
            self.inner = dataset_class(config)
            self.inner.seed = self.seed  # reasoning-gym draws one when the config has none

        def __getitem__(self, idx: int) -> dict[str, Any]:
            return self.inner[idx]

        def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
            return self.inner.score_answer(answer, entry)

    def size_range(name: str, description: str) -> RangeAttributeDefinition:
        """The range ``min_<name>``..``max_<name>`` of each level, exactly as the level's own.

        Each level's value is its ``[min, max]`` pair, which reasoning-gym takes as the
        range whatever its range mode (a single number per level would make level 0's
        range its maximum alone).
        """
        return RangeAttributeDefinition(
            name=name,
            levels=[
                [getattr(level, f"min_{name}"), getattr(level, f"max_{name}")] for level in levels
            ],
            description=description,
            lower_field_name=f"min_{name}",
            upper_field_name=f"max_{name}",
        )

    def curriculum_for(name: str, config_cls: type[gym.TwoSatConfig]) -> type[BaseCurriculum]:
        class TwoSatCurriculum(BaseCurriculum):
            """The levels of :class:`twosat_formal.integrations.gym.Curriculum`."""

            def __init__(self) -> None:
                super().__init__(f"{name} curriculum", config_cls)
                self._define_attributes(
                    size_range("clauses", "clause count of the formula"),
                    size_range("filler_share", "share of filler clauses"),
                    ScalarAttributeDefinition(
                        name="knob_spread",
                        levels=[level.knob_spread for level in levels],
                        description="spread of the difficulty knobs around 0.5",
                        field_name="knob_spread",
                    ),
                )

        return TwoSatCurriculum

    added = []
    for name in names:
        if name in DATASETS:
            continue
        config_cls = config_class(name)
        register_dataset(name, TwoSatGymDataset, config_cls, curriculum_for(name, config_cls))
        added.append(name)
    return added
