"""Where built images live in the harness's cache: ``bench.environment.image`` builds and unpacks them there,
and the docker backend loads an image's tar from there by digest."""

from __future__ import annotations

from pathlib import Path


def images_cache(cache_dir: Path | None = None) -> Path:
    if cache_dir is None:
        from bench.variables import cache_dir as configured

        cache_dir = configured()
    return Path(cache_dir) / "images"


def cached_tar_path(digest: str, cache_dir: Path | None = None) -> Path:
    """Where the tar of ``digest`` lives in the cache (it may not exist)."""
    return images_cache(cache_dir) / f"{digest.removeprefix('sha256:')}.tar"

