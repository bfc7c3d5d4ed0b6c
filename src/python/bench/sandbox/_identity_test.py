import os

from bench.sandbox import _identity
from bench.sandbox._identity import Identity, hand_back, hand_over, run_identity


def test_hand_over_and_back_never_follows_symlinks(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("host")
    os.chown(victim, 4242, 4242)
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "file").write_text("x")
    (tree / "link").symlink_to(victim)
    (tree / "dirlink").symlink_to(tmp_path)
    owners = hand_over((tree,), Identity(64299, 64299, True))
    assert {p.lstat().st_uid for p in (tree, tree / "sub", tree / "sub" / "file", tree / "link")} == {64299}
    assert victim.stat().st_uid == 4242 and tmp_path.stat().st_uid == 0
    (tree / "created").write_text("by the run")
    os.chown(tree / "created", 64299, 64299)
    hand_back(owners)
    assert {p.lstat().st_uid for p in (tree, tree / "sub" / "file", tree / "link", tree / "created")} == {0}
    assert victim.stat().st_uid == 4242


def test_nothing_is_chowned_without_privilege_drop(tmp_path):
    assert hand_over((tmp_path,), Identity(os.getuid(), os.getgid(), False)) == ()


def test_concurrent_identities_are_distinct_and_released():
    with run_identity() as first, run_identity() as second:
        assert first.drop_privileges and second.drop_privileges
        assert first.uid != second.uid
        assert _identity.HOST_UID_BASE <= min(first.uid, second.uid) < _identity.HOST_UID_BASE + _identity.SLOTS
    with run_identity() as again:
        assert again.uid == min(first.uid, second.uid)  # freed slots are reused, lowest first
