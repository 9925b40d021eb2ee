"""Types of the compiled solver kernel (``_kernel.pyx``)."""

from typing import Any

import numpy as np
import numpy.typing as npt

_Index = npt.NDArray[np.signedinteger[Any]]

def strong_components(indptr: _Index, indices: _Index) -> tuple[int, npt.NDArray[np.int64]]: ...
def bfs_path(
    indptr: _Index,
    indices: _Index,
    start: int,
    goal: int,
    labels: npt.NDArray[np.int64],
    within: int,
) -> npt.NDArray[np.int64] | None: ...
