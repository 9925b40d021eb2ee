"""``certify --cache DIR``: skip the records that passed before, exactly as they are.

A run with a cache checks a record only when this record, with these bytes, has not
passed before with the same dependencies, so a dataset that grew by 1 % costs about
1 % of a full run, plus reading the files. The cache stores digests (and each passing
record's kind: instance, prompt, story or document), never a record or a result:

* a record's **key** is the SHA-256 of the tool's fingerprint (:func:`fingerprint`:
  the version and every file of the installed package, the versions of PySAT, Z3 and
  Lark, and Python's), the SHA-256 of the exact bytes of the record's line, and that of
  each line it refers to (its root, its instance, its twin's source; "none" where it
  refers to no record in the dataset), as the index read them
  (:class:`~twosat_formal.certify.index.Index`: each line parsed once, exactly). A key
  is kept only for a record that passed every check;
* a record is skipped only when its key is in the cache, so a change of one byte of
  the record, of a record it refers to, of the tool or of a solver checks it again.
  A skipped record is not sent to a worker's checks;
* the cache file is **sealed**: an HMAC-SHA256 over every byte before the seal, keyed
  by ``$TWOSAT_FORMAL_CACHE_KEY`` when it is set (a CI secret: then no entry can be
  forged without it) and by a fixed label otherwise. A file whose seal, header or any
  line does not read back, a file of another format, or one written by another tool
  or solver version is ignored whole: every record is checked, never passed, and
  the file is written again after the run (:attr:`CertifyCache.note` says why).

The entries are kept per dataset file (by the digest of its path as given): a run
replaces the entries of the files it certified with the keys of their records that
passed, and keeps those of other files, so certifying two datasets into one cache
folder keeps both, and the cache holds no more than the datasets' passing records.
The cache's file is an output: a dataset file that is it (or a link to it) is refused
(:meth:`CertifyCache.refuse_inputs`), never replaced.

Examples
--------
>>> import tempfile, pathlib
>>> from twosat_formal.certify import certify_files
>>> from twosat_formal.make.generators import generate
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> data = folder / "data.jsonl"
>>> _ = data.write_text(generate("backbone", clauses=8, seed=2).to_json() + "\\n")
>>> first = certify_files([data], cache=CertifyCache(folder / "cache"))
>>> again = certify_files([data], cache=CertifyCache(folder / "cache"))
>>> (first.ok, first.cached), (again.ok, again.cached, again.checks)
((True, 0), (True, 1, 0))
"""

from __future__ import annotations

import hashlib
import hmac
import os
import platform
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import IO, TYPE_CHECKING

from twosat_formal._util.atomic import atomic_path, refuse_aliases
from twosat_formal.certify.results import RecordResult
from twosat_formal.errors import ConfigError

if TYPE_CHECKING:
    from twosat_formal._util.executors import Executor
    from twosat_formal.certify.index import Item

__all__ = ["CACHE_FILE", "CACHE_KEY_ENV", "FORMAT", "KINDS", "CertifyCache", "fingerprint"]

#: The first line of a cache file; another first line is another format (ignored whole).
FORMAT = "twosat-formal certify cache 2"
#: The file the cache keeps in its folder.
CACHE_FILE = "certify.cache"
#: The environment variable whose value keys the seal (a CI secret), when set.
CACHE_KEY_ENV = "TWOSAT_FORMAL_CACHE_KEY"
#: The seal's key when :data:`CACHE_KEY_ENV` is not set.
_PUBLIC_KEY = b"twosat-formal certify cache"
#: The kinds of record an entry may name (:func:`twosat_formal.certify.checks.kind_of`).
KINDS = frozenset({"instance", "prompt", "story", "document"})
#: The solver and parser packages whose versions each key names.
_DEPENDENCIES = ("python-sat", "z3-solver", "lark")


def _package_files() -> Iterator[tuple[str, Path]]:
    """The files that make up the installed tool, the package's and its grammars', each
    with its name relative to its folder."""
    root = Path(__file__).resolve().parent.parent  # the package, above certify/
    grammars = root / "grammar"
    if not grammars.is_dir():  # a checkout: the grammars beside the package
        grammars = root.parent / "grammar"
    for folder in (root, grammars):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                yield f"{folder.name}/{path.relative_to(folder).as_posix()}", path


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


@cache
def fingerprint() -> str:
    """The tool's fingerprint: what a record's key names besides its bytes.

    The tool's version and the SHA-256 of every file of the package (so a checkout
    that changed without a new version is another tool), the versions of the solver
    and parser packages, and Python's version; computed once per process.
    """
    from twosat_formal.core.provenance import tool_version

    digest = hashlib.sha256()
    for name, path in _package_files():
        digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    parts = [
        f"twosat-formal {tool_version()} {digest.hexdigest()}",
        *(f"{name} {_version(name)}" for name in _DEPENDENCIES),
        f"python {platform.python_version()}",
    ]
    return "; ".join(parts)


def _verdict(seal: bytes | None, digest: str, problem: str | None, mac_lines: int) -> str | None:
    """What is wrong with a cache file read whole: its seal first, then its lines."""
    if seal is None:
        return "it has no seal (cut short, or not a cache file)"
    if not hmac.compare_digest(seal.decode("ascii", "replace"), digest):
        return (
            "its seal does not match its content (changed by hand or damaged, "
            f"or sealed with another ${CACHE_KEY_ENV})"
        )
    if problem is None and mac_lines < 2:  # sealed, but without its first two lines
        return f"it is not in the format {FORMAT!r}"
    return problem


def _entry(line: str, current: dict[bytes, str] | None, number: int) -> str | None:
    """Add the entry ``line`` (a key and its record's kind) to ``current``; or why not."""
    digest, _, kind = line.partition(" ")
    try:
        key = bytes.fromhex(digest)
    except ValueError:
        key = b""
    if current is None or len(key) != hashlib.sha256().digest_size or kind not in KINDS:
        return f"line {number} is not a digest and a record kind"
    current[key] = kind
    return None


def _passed(item: Item, kind: str) -> RecordResult:
    """The result of a line that passed before with these exact bytes and dependencies."""
    return RecordResult(
        id=item.id,
        line=item.line,
        source=item.source,
        kind=kind,
        checks=0,
        failures=(),
        seconds=0.0,
        z3_seconds=0.0,
        cached=True,
    )


def _path_digest(path: str) -> str:
    return hashlib.sha256(os.path.normpath(path).encode("utf-8", "surrogateescape")).hexdigest()


class CertifyCache:
    """The digests of the records that passed ``certify``, kept in the folder ``folder``.

    Read when made (an unreadable, changed or foreign file is ignored whole: see
    :attr:`note`); :func:`~twosat_formal.certify.certify_files` marks the records
    whose key it holds (:meth:`map`) and saves this run's passes (:meth:`save`).

    Raises
    ------
    ConfigError
        If ``folder`` exists and is not a folder.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise ConfigError(f"--cache {self.folder}: not a folder", parameter="cache")
        self.path = self.folder / CACHE_FILE
        secret = os.environ.get(CACHE_KEY_ENV)
        self._key = secret.encode("utf-8", "surrogateescape") if secret else _PUBLIC_KEY
        self._fingerprint = fingerprint()
        self._tool = hashlib.sha256(self._fingerprint.encode()).digest()
        #: Why the cache file was ignored (``None``: read, or there was none).
        self.note: str | None = None
        #: The keys of each dataset file's passing records with their kinds, by the
        #: digest of the file's path.
        self.files: dict[str, dict[bytes, str]] = {}
        #: The key of every record that passed, with its kind.
        self.passed: dict[bytes, str] = {}
        self._run: dict[str, dict[bytes, str]] = {}
        #: The dataset files of this run, with the digests of their paths.
        self._sources: dict[str, str] = {}
        self._load()

    # -- reading -----------------------------------------------------------------------------

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as stream:
                problem = self._parse(stream)
        except FileNotFoundError:
            return
        except OSError as exc:
            problem = f"cannot be read ({exc.strerror})"
        if problem is not None:
            self._ignore(problem)
            return
        for keys in self.files.values():
            self.passed.update(keys)

    def _ignore(self, why: str) -> None:
        self.files = {}
        self.note = f"the cache {self.path} is ignored, every record is checked: {why}"

    def _parse(self, stream: IO[bytes]) -> str | None:
        """Read ``stream`` into :attr:`files`, a line at a time, the seal computed as it
        goes; what is wrong with it (``None``: nothing; the seal is judged first)."""
        mac = hmac.new(self._key, digestmod=hashlib.sha256)
        seal: bytes | None = None
        problem: str | None = None
        current: dict[bytes, str] | None = None
        mac_lines = 0
        for number, raw in enumerate(stream, 1):
            if seal is not None or not raw.endswith(b"\n"):  # nothing after the seal
                seal = None
                break
            if raw.startswith(b"seal "):
                seal = raw[5:-1]
                continue
            mac.update(raw)
            mac_lines += 1
            if problem is not None:
                continue
            problem, current = self._take(number, raw[:-1].decode("utf-8", "replace"), current)
        return _verdict(seal, mac.hexdigest(), problem, mac_lines)

    def _take(
        self, number: int, line: str, current: dict[bytes, str] | None
    ) -> tuple[str | None, dict[bytes, str] | None]:
        """What is wrong with line ``number`` (``None``: nothing), and the entries of the
        file the lines after it belong to."""
        if number == 1:
            return (None if line == FORMAT else f"it is not in the format {FORMAT!r}"), current
        if number == 2:
            if line != f"tool {self._fingerprint}":
                return "it was written by another version of the tool or its solvers", current
            return None, current
        if line.startswith("file "):
            return None, self.files.setdefault(line[5:], {})
        return _entry(line, current, number), current

    # -- the run -----------------------------------------------------------------------------

    def key(self, line: bytes, found: Iterable[bytes | None]) -> bytes:
        """The key of a record whose line's SHA-256 is ``line`` and whose references
        resolve to the lines of SHA-256 ``found`` (``None``: no record has that id)."""
        digest = hashlib.sha256(self._tool)
        digest.update(line)
        for key in found:
            digest.update(b"\0" if key is None else b"\1" + key)
        return digest.digest()

    def map(
        self,
        runner: Executor,
        check: Callable[[Item | RecordResult], RecordResult],
        items: Iterable[Item],
    ) -> Iterator[RecordResult]:
        """``runner.map(check, items)``, each item whose key passed before replaced by its
        passing result (``check`` answers a result as it is); keeps the key of each item
        whose answer is a passing result."""
        self._run = {}
        self._sources = {}
        pending: deque[tuple[str, bytes]] = deque()

        def marked() -> Iterator[Item | RecordResult]:
            for item in items:
                key = self.key(item.key, (None if e is None else e.key for e in item.found))
                source = self._sources.get(item.source)
                if source is None:  # the file's first record: its digest, once
                    source = self._sources[item.source] = _path_digest(item.source)
                self._run.setdefault(source, {})  # its entries are replaced by this run's
                pending.append((source, key))
                kind = self.passed.get(key)
                yield item if kind is None else _passed(item, kind)

        for answer in runner.map(check, marked()):
            source, key = pending.popleft()
            if not answer.failures:
                self._run[source][key] = answer.kind
            yield answer

    # -- writing -----------------------------------------------------------------------------

    def refuse_inputs(
        self, paths: Iterable[str | os.PathLike[str]], output: str | os.PathLike[str] | None = None
    ) -> None:
        """Refuse dataset files ``paths``, or a report ``output``, that are the cache's
        file: the cache is an output, which would replace it.

        Raises
        ------
        ConfigError
            Naming the cache's file and the input (or output) it is.
        """
        refuse_aliases({"output": output, "cache": self.path}, {"DATASET": list(paths)})

    def save(self) -> None:
        """Write the cache: this run's passes for the files it certified, the entries
        of other files as they were; sealed, and atomically (a run cut short leaves the
        file it found).

        Raises
        ------
        ConfigError
            If a dataset file of the run is the cache's file (a link to it included):
            nothing is written (:meth:`refuse_inputs`).
        """
        self.refuse_inputs(list(self._sources))
        files = {**self.files, **self._run}
        mac = hmac.new(self._key, digestmod=hashlib.sha256)
        self.folder.mkdir(parents=True, exist_ok=True)
        with atomic_path(self.path) as partial, open(partial, "wb") as out:

            def put(text: str) -> None:
                data = (text + "\n").encode("utf-8")
                mac.update(data)
                out.write(data)

            put(FORMAT)
            put(f"tool {self._fingerprint}")
            for name in sorted(files):
                put(f"file {name}")
                for key, kind in sorted(files[name].items()):
                    put(f"{key.hex()} {kind}")
            out.write(f"seal {mac.hexdigest()}\n".encode("ascii"))
        self.files = files
