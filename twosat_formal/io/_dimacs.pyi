"""Types of the compiled DIMACS recogniser (``_dimacs.pyx``)."""

import numpy as np
import numpy.typing as npt

CHARACTERS: int
TOKEN: int
END: int

def recognise(
    text: bytes, positions: bool = False
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    tuple[int, int, int, int] | None,
    list[tuple[int, int, int, int]],
    tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None,
    tuple[int, int, int, int] | None,
]: ...
