#!/usr/bin/env bash
# Build the llama-cpp-python wheel (CPU only) once into the wheel cache, and reuse it afterwards.
#
# llama-cpp-python ships only an sdist on PyPI for Linux; compiling its vendored llama.cpp takes about
# seven minutes on two cores, so the result is cached by version under $BENCH_CACHE_DIR/wheels.
#
# Usage: build-support/llama_cpp_wheel.sh [--install] [PYTHON]
#   PYTHON     interpreter whose pip builds the wheel (default: python3).
#   --install  also install the wheel with its [server] extra into PYTHON's environment (the server's
#              dependencies are ordinary wheels from the index) — what the model tests need.
# Prints the path of the wheel on stdout; progress goes to stderr.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION="0.3.36"  # the version the model tests run with; bump deliberately
INSTALL=0
if [[ "${1:-}" == "--install" ]]; then
  INSTALL=1
  shift
fi
PYTHON="${1:-python3}"
CACHE_DIR="${BENCH_CACHE_DIR:-$HOME/.cache/loopcontrolbench}"
WHEEL_DIR="$CACHE_DIR/wheels"
mkdir -p "$WHEEL_DIR"

# The wheel talks to libllama through ctypes, so it is tagged py3-none-<platform>: one per platform.
find_wheel() {
  local platform
  platform="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))')"
  ls "$WHEEL_DIR"/llama_cpp_python-"$LLAMA_CPP_PYTHON_VERSION"-*-"$platform".whl 2>/dev/null | head -n 1
}

install() {
  if [[ "$INSTALL" == 1 ]]; then
    echo "installing $1[server] into $PYTHON's environment" >&2
    "$PYTHON" -m pip install --quiet "$1[server]" >&2
  fi
  echo "$1"
}

existing="$(find_wheel || true)"
if [[ -n "$existing" ]]; then
  install "$existing"
  exit 0
fi

# Build in a private temp dir and move the finished wheel into the cache atomically, so an interrupted
# build never leaves a half-written wheel that a later run would trust.
work="$(mktemp -d "$WHEEL_DIR/.build.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "building llama-cpp-python $LLAMA_CPP_PYTHON_VERSION (CPU only; several minutes)..." >&2
start=$(date +%s)
# CPU only, portable: no GPU backends, no host-specific SIMD (-march=native) so the wheel runs on any
# machine of this kind; OpenMP off keeps thread behaviour simple and deterministic.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
"$PYTHON" -m pip wheel --no-deps --no-binary llama-cpp-python \
  --wheel-dir "$work" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >&2
built="$(ls "$work"/llama_cpp_python-*.whl | head -n 1)"
mv "$built" "$WHEEL_DIR/$(basename "$built")"
echo "built in $(( $(date +%s) - start )) s" >&2
install "$(find_wheel)"
