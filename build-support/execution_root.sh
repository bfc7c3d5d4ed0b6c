#!/usr/bin/env bash
# Where Pants should write its process sandboxes: prints DIR/pants-sandboxes-<uid> when DIR is a tmpfs with at
# least MIN_GIB GiB free, and nothing otherwise (Pants then keeps its default, the system temp folder).
#
# Every process Pants runs gets a sandbox written file by file and deleted afterwards, thousands of files per
# test target. On a disk-backed /tmp (ext4 mounted with online discard on this machine kind) creating and
# deleting them is kernel work in the inode allocator on every core; on tmpfs it is a memory copy.
#
# Usage: build-support/execution_root.sh [DIR] [MIN_GIB]     (defaults: /dev/shm 4)
set -euo pipefail
dir="${1:-/dev/shm}"
min_gib="${2:-4}"
[ -d "$dir" ] && [ -w "$dir" ] || exit 0
[ "$(stat -f -c %T "$dir" 2>/dev/null)" = tmpfs ] || exit 0
free_gib=$(( $(stat -f -c '%a * %S' "$dir") / 1073741824 ))
[ "$free_gib" -ge "$min_gib" ] || exit 0
echo "$dir/pants-sandboxes-$(id -u)"
