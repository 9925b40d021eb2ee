"""Types of the compiled solver kernel (``_kernel.pyx``)."""

from typing import Any

import numpy as np
import numpy.typing as npt

_Index = npt.NDArray[np.signedinteger[Any]]

def strong_components(indptr: _Index, indices: _Index) -> tuple[int, npt.NDArray[np.int64]]: ...
def bfs_paths(
    indptr: _Index,
    indices: _Index,
    starts: npt.NDArray[np.int64],
    goals: npt.NDArray[np.int64],
    labels: npt.NDArray[np.int64],
    within: int,
) -> list[npt.NDArray[np.int64] | None]: ...
def implication_csr(
    nodes: npt.NDArray[np.int64], num_nodes: int, wide: bool = False
) -> tuple[_Index, _Index]: ...
