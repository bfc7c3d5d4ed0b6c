"""Optional pull-request metadata from GitHub's API (title, labels, linked issues).

Mining never depends on it: the API is often unreachable (offline machines, rate limits). Each lookup has a
short timeout and returns a record whose ``status`` says what happened; after the first failure a session stops
asking, so an offline run costs one timeout, not one per candidate.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

API = "https://api.github.com/repos/{repo}/pulls/{number}"
LINKED_ISSUE = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s+#(\d+)", re.IGNORECASE)


class MetadataSession:
    """Looks PRs up until the API first fails; from then on every answer is ``unavailable``."""

    def __init__(self, *, timeout: float = 3.0, enabled: bool = True) -> None:
        self.timeout = timeout
        self.available = enabled
        self.first_error = "" if enabled else "not requested"

    def lookup(self, repo: str, number: int) -> dict:
        if not self.available:
            return {"status": "unavailable", "error": self.first_error}
        try:
            return fetch_pr_metadata(repo, number, timeout=self.timeout)
        except (OSError, ValueError, urllib.error.URLError) as error:  # offline, refused, timeout, bad JSON
            self.available = False
            self.first_error = f"{type(error).__name__}: {error}"[:200]
            return {"status": "unavailable", "error": self.first_error}


def fetch_pr_metadata(repo: str, number: int, *, timeout: float = 3.0) -> dict:
    request = urllib.request.Request(API.format(repo=repo, number=number),
                                     headers={"Accept": "application/vnd.github+json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (fixed https URL)
        data = json.loads(response.read())
    return parse_pr_metadata(data)


def parse_pr_metadata(data: dict) -> dict:
    body = data.get("body") or ""
    return {
        "status": "ok",
        "title": data.get("title", ""),
        "labels": sorted(label.get("name", "") for label in data.get("labels", [])),
        "linked_issues": sorted({int(n) for n in LINKED_ISSUE.findall(body)}),
        "merged_at": data.get("merged_at") or "",
    }
