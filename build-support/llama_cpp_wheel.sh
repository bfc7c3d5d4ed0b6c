#!/usr/bin/env bash
# Build the llama-cpp-python wheel (CPU only) once into the wheel cache, and reuse it afterwards.
#
# llama-cpp-python ships only an sdist on PyPI for Linux; compiling its vendored llama.cpp takes about
# seven minutes on two cores, so the result is cached by version and build options under
# $BENCH_CACHE_DIR/wheels/<hash of the options>/. The CMake options are the ones Pants builds with:
# lockfiles/llama-cpp-python.cmake-args (a fixed x86-64-v3 baseline, never -march=native).
#
# Usage: build-support/llama_cpp_wheel.sh [--install] [PYTHON]
#   PYTHON     interpreter whose pip builds the wheel (default: python3).
#   --install  also install the wheel with its [server] extra into PYTHON's environment (the server's
#              dependencies are ordinary wheels from the index) — what the model tests need.
# Prints the path of the wheel on stdout; progress goes to stderr. Beside the wheel, <wheel>.inputs records what it
# was built from: the sdist's sha256, the CMake options, Python, CMake and the compilers.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION="0.3.36"  # the version the model tests run with; bump deliberately
INSTALL=0
if [[ "${1:-}" == "--install" ]]; then
  INSTALL=1
  shift
fi
PYTHON="${1:-python3}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ARGS_FILE="$here/../lockfiles/llama-cpp-python.cmake-args"
# One option a line; comment lines start with '#'.
CMAKE_ARGS="$(grep -v '^[[:space:]]*#' "$ARGS_FILE" | tr -s '[:space:]' ' ' | sed 's/^ //; s/ $//')"
[[ "$CMAKE_ARGS" == *-DGGML_NATIVE=OFF* ]] || { echo "$ARGS_FILE must turn GGML_NATIVE off" >&2; exit 2; }
ARGS_HASH="$(printf '%s' "$CMAKE_ARGS" | sha256sum | cut -c1-12)"
CACHE_DIR="${BENCH_CACHE_DIR:-$HOME/.cache/loopcontrolbench}"
# A wheel built with other options (an older native build) is never reused: the options name the folder.
WHEEL_DIR="$CACHE_DIR/wheels/llama-cpp-python-$ARGS_HASH"
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
echo "CMAKE_ARGS=$CMAKE_ARGS" >&2
start=$(date +%s)
# CPU only, portable: the same pinned options on every machine, so every machine builds the same library
# and it runs on any machine of this kind. The build reads no other CMake settings from the caller.
export CMAKE_ARGS
unset CMAKE_TOOLCHAIN_FILE CMAKE_GENERATOR
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
# The sdist is the one python-default.lock pins, checked by its sha256.
sha="$("$PYTHON" - "$here/../lockfiles/python-default.lock" "$LLAMA_CPP_PYTHON_VERSION" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
lock = json.loads(text[text.index("{", text.index("--- END PANTS LOCKFILE METADATA")):])
for resolve in lock["locked_resolves"]:
    for req in resolve["locked_requirements"]:
        if req["project_name"] == "llama-cpp-python" and req["version"] == sys.argv[2]:
            print(next(a["hash"] for a in req["artifacts"] if a["url"].endswith(".tar.gz")))
            raise SystemExit(0)
raise SystemExit(f"llama-cpp-python {sys.argv[2]} is not in {sys.argv[1]}")
EOF
)"
echo "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION --hash=sha256:$sha" > "$work/requirements.txt"
# --no-cache-dir: pip's own wheel cache is keyed by the sdist alone, so it could hand back a wheel built with
# other options; this script's cache folder is keyed by them.
if ! "$PYTHON" -m pip wheel -v --no-cache-dir --no-deps --no-binary llama-cpp-python --require-hashes \
    --wheel-dir "$work" -r "$work/requirements.txt" > "$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log" >&2
  echo "llama-cpp-python did not build; the last lines of its log are above" >&2
  exit 1
fi
built="$(ls "$work"/llama_cpp_python-*.whl | head -n 1)"
# What the wheel was built from, beside it: the sdist's hash, the options, and the toolchain the build used
# (read from the build's own log: the CMake and compilers of pip's isolated build environment).
found() { grep -m 1 -o "$1.*" "$work/build.log" | tr -d '\r' || echo "not in the build log"; }
{
  echo "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
  echo "sdist sha256: $sha"
  echo "CMAKE_ARGS: $CMAKE_ARGS"
  echo "python: $("$PYTHON" -c 'import platform; print(platform.python_version())')"
  echo "build backend: $(found 'scikit-build-core [0-9.]* using CMake [0-9.]*')"
  echo "C compiler: $(found 'The C compiler identification is ')"
  echo "C++ compiler: $(found 'The CXX compiler identification is ')"
  echo "machine: $(uname -m), $(nproc) cores"
} > "$work/inputs.txt"
mv "$work/inputs.txt" "$WHEEL_DIR/$(basename "$built").inputs"
mv "$built" "$WHEEL_DIR/$(basename "$built")"
echo "built in $(( $(date +%s) - start )) s" >&2
install "$(find_wheel)"
