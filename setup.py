"""Build of the package with its compiled parts: the solver kernel
(``twosat_formal/solve/_kernel.pyx``) and the DIMACS recogniser
(``twosat_formal/io/_dimacs.pyx``).

The project's metadata, dependencies and entry points are in ``pyproject.toml``; this
file lists the packages and their data (the top-level ``grammar/`` folder goes into
the wheel as ``twosat_formal/grammar``) and the Cython extensions, compiled against
NumPy's headers whenever the package is built or installed (``pip install -e .``,
``pip wheel .``).
"""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_namespace_packages, setup

extensions = [
    Extension(
        name,
        [name.replace(".", "/") + ".pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in ("twosat_formal.solve._kernel", "twosat_formal.io._dimacs")
]

setup(
    # namespace packages too: the data folders (data/, experiments/specs/) have no
    # __init__.py, and their files are package data
    packages=[
        *find_namespace_packages(include=["twosat_formal*"], exclude=["*.__pycache__"]),
        "twosat_formal.grammar",
    ],
    package_dir={"twosat_formal.grammar": "grammar"},
    package_data={"": ["*.json", "*.txt", "*.lark", "py.typed", "*.pyx", "*.pyi"]},
    exclude_package_data={"": ["*.c"]},
    ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}),
)
