"""Fewest-coin change and counting the ways to make change."""


def _validate(amount, coins):
    coins = sorted(set(coins))
    if not coins or any(c <= 0 for c in coins) or amount < 0:
        raise ValueError("coins must be positive and the amount must not be negative")
    return coins


def min_coins(amount, coins):
    coins = _validate(amount, coins)
    result = []
    for coin in reversed(coins):
        while amount >= coin:
            result.append(coin)
            amount -= coin
    return result if amount == 0 else None


def count_ways(amount, coins):
    coins = _validate(amount, coins)
    ways = [1] + [0] * amount
    for value in range(1, amount + 1):
        for coin in coins:
            if coin <= value:
                ways[value] += ways[value - coin]
    return ways[amount]
