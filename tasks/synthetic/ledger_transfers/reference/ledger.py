"""Accounts with deposits, withdrawals and transfers, kept in integer cents."""

from money import format_amount, parse_amount


class InsufficientFunds(ValueError):
    pass


class Ledger:
    def __init__(self):
        self._balances = {}
        self._history = {}

    def open(self, account):
        if account in self._balances:
            raise ValueError(f"account {account!r} already exists")
        self._balances[account] = 0
        self._history[account] = []

    def deposit(self, account, amount):
        self._require(account)
        cents = self._positive(amount)
        self._post(account, "deposit", cents)

    def withdraw(self, account, amount):
        self._require(account)
        cents = self._positive(amount)
        self._require_funds(account, cents)
        self._post(account, "withdraw", -cents)

    def transfer(self, src, dst, amount):
        self._require(src)
        self._require(dst)
        if src == dst:
            raise ValueError("cannot transfer to the same account")
        cents = self._positive(amount)
        self._require_funds(src, cents)
        self._post(src, "transfer_out", -cents)
        self._post(dst, "transfer_in", cents)

    def balance(self, account):
        self._require(account)
        return format_amount(self._balances[account])

    def history(self, account):
        self._require(account)
        return list(self._history[account])

    def _require(self, account):
        if account not in self._balances:
            raise KeyError(account)

    def _require_funds(self, account, cents):
        if self._balances[account] < cents:
            raise InsufficientFunds(f"{account!r} has {format_amount(self._balances[account])}")

    @staticmethod
    def _positive(amount):
        cents = parse_amount(amount)
        if cents <= 0:
            raise ValueError(f"amount must be positive: {amount!r}")
        return cents

    def _post(self, account, kind, cents):
        self._balances[account] += cents
        self._history[account].append((kind, cents))
