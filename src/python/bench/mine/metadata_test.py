from bench.mine import metadata
from bench.mine.metadata import MetadataSession, parse_pr_metadata


def test_parse_pr_metadata_reads_labels_and_linked_issues():
    data = {"title": "Fix parser", "labels": [{"name": "bug"}, {"name": "a"}], "merged_at": "2024-01-01T00:00:00Z",
            "body": "Fixes #12 and closes #3; see #99"}
    assert parse_pr_metadata(data) == {"status": "ok", "title": "Fix parser", "labels": ["a", "bug"],
                                       "linked_issues": [3, 12], "merged_at": "2024-01-01T00:00:00Z"}


def test_an_unreachable_api_is_asked_once_and_recorded_as_unavailable(monkeypatch):
    calls = []

    def refuse(repo, number, *, timeout):
        calls.append(number)
        raise OSError("network unreachable")

    monkeypatch.setattr(metadata, "fetch_pr_metadata", refuse)
    session = MetadataSession(timeout=0.1)
    answers = [session.lookup("acme/widgets", n) for n in (1, 2, 3)]
    assert calls == [1]
    assert [a["status"] for a in answers] == ["unavailable"] * 3
    assert answers[2]["error"] == "OSError: network unreachable"


def test_a_disabled_session_never_asks(monkeypatch):
    monkeypatch.setattr(metadata, "fetch_pr_metadata", lambda *a, **k: 1 / 0)
    assert MetadataSession(enabled=False).lookup("acme/widgets", 1) == {"status": "unavailable",
                                                                        "error": "not requested"}
