"""`bench image build NAME [--update]`: build a scoring image and check (or re-pin) its digest."""

from __future__ import annotations

import argparse
import sys

EPILOG = """examples:
  bench image build trixie-py313             reuse the cached tar of the pinned digest, else build and compare
  bench image build trixie-py313 --rebuild   build afresh and check the result against the pin
  bench image build trixie-py313 --update    build afresh and re-pin images/<name>/digest and manifest.txt

Prints `<name> sha256:<hex>` on stdout. A digest other than the pinned one is an error that lists the package
changes; certificates made with the old digest are then stale.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("image", help="build and pin scoring images", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="image_action", metavar="ACTION")
    actions.required = True
    build = actions.add_parser("build", help="build (or reuse) an image and check its digest", epilog=EPILOG,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    build.add_argument("name", help="a folder under images/, e.g. trixie-py313")
    mode = build.add_mutually_exclusive_group()
    mode.add_argument("--update", action="store_true", help="build afresh and re-pin digest + manifest")
    mode.add_argument("--rebuild", action="store_true", help="build afresh even if the pinned tar is cached")
    mode.add_argument("--reuse-only", action="store_true", help="fail instead of building when not cached")
    build.add_argument("--unpack", action="store_true", help="also unpack the rootfs for bwrap; print its path")
    build.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.environment.image import build_image, unpack_image

    image = build_image(args.name, update=args.update, rebuild=args.rebuild, reuse_only=args.reuse_only)
    print(f"{image.name} {image.digest}")
    print(f"bench image build: {image.tar_path} ({len(image.manifest)} packages)", file=sys.stderr)
    if args.unpack:
        print(unpack_image(image))
    return 0
