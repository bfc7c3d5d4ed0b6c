#!/usr/bin/env bash
# Where Pants should write its process sandboxes: prints DIR/NAME-<uid> when DIR is a tmpfs with at least MIN_GIB
# GiB free, and nothing otherwise (Pants then keeps its default, the system temp folder). The ./pants launcher
# also asks it for the test processes' temp folder (NAME pants-test-tmp).
#
# Every process Pants runs gets a sandbox written file by file and deleted afterwards, thousands of files per
# test target. On a disk-backed /tmp (ext4 mounted with online discard on this machine kind) creating and
# deleting them is kernel work in the inode allocator on every core; on tmpfs it is a memory copy.
#
# Usage: build-support/execution_root.sh [DIR] [MIN_GIB] [NAME]     (defaults: /dev/shm 4 pants-sandboxes)
set -euo pipefail
dir="${1:-/dev/shm}"
min_gib="${2:-4}"
name="${3:-pants-sandboxes}"
[ -d "$dir" ] && [ -w "$dir" ] || exit 0
[ "$(stat -f -c %T "$dir" 2>/dev/null)" = tmpfs ] || exit 0
free_gib=$(( $(stat -f -c '%a * %S' "$dir") / 1073741824 ))
[ "$free_gib" -ge "$min_gib" ] || exit 0
echo "$dir/$name-$(id -u)"
