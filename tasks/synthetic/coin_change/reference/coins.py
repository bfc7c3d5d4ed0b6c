"""Fewest-coin change and counting the ways to make change."""


def _validate(amount, coins):
    coins = sorted(set(coins))
    if not coins or any(c <= 0 for c in coins) or amount < 0:
        raise ValueError("coins must be positive and the amount must not be negative")
    return coins


def min_coins(amount, coins):
    coins = _validate(amount, coins)
    unreachable = amount + 1
    fewest = [0] + [unreachable] * amount
    for value in range(1, amount + 1):
        for coin in coins:
            if coin <= value and fewest[value - coin] + 1 < fewest[value]:
                fewest[value] = fewest[value - coin] + 1
    if fewest[amount] >= unreachable:
        return None
    # Taking the largest coin that keeps the count optimal yields the lexicographically largest answer.
    result = []
    while amount:
        coin = max(c for c in coins if c <= amount and fewest[amount - c] == fewest[amount] - 1)
        result.append(coin)
        amount -= coin
    return result


def count_ways(amount, coins):
    coins = _validate(amount, coins)
    ways = [1] + [0] * amount
    for coin in coins:
        for value in range(coin, amount + 1):
            ways[value] += ways[value - coin]
    return ways[amount]
