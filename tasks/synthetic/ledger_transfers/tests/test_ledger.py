import pytest

import ledger


def make():
    book = ledger.Ledger()
    book.open("alice")
    book.open("bob")
    book.deposit("alice", "100.00")
    return book


def test_deposit_and_withdraw():
    book = make()
    book.withdraw("alice", "30.5")
    assert book.balance("alice") == "69.50"
    assert book.history("alice") == [("deposit", 10000), ("withdraw", -3050)]


def test_transfer_moves_money():
    book = make()
    book.transfer("alice", "bob", "100")
    assert (book.balance("alice"), book.balance("bob")) == ("0.00", "100.00")
    assert book.history("bob") == [("transfer_in", 10000)]


def test_insufficient_funds_changes_nothing():
    book = make()
    with pytest.raises(ledger.InsufficientFunds):
        book.transfer("alice", "bob", "100.01")
    assert book.balance("alice") == "100.00"
    assert book.history("bob") == []


def test_transfer_to_unknown_account_changes_nothing():
    book = make()
    with pytest.raises(KeyError):
        book.transfer("alice", "carol", "10")
    assert book.balance("alice") == "100.00"
    assert book.history("alice") == [("deposit", 10000)]


def test_transfer_to_same_account_rejected():
    book = make()
    with pytest.raises(ValueError):
        book.transfer("alice", "alice", "1")
    assert book.history("alice") == [("deposit", 10000)]


def test_amounts_must_be_positive():
    book = make()
    for bad in ("0", "-5.00"):
        with pytest.raises(ValueError):
            book.deposit("alice", bad)
    assert book.balance("alice") == "100.00"


def test_duplicate_account_rejected():
    book = make()
    with pytest.raises(ValueError):
        book.open("bob")
