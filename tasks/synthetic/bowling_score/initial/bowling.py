"""Scoring a complete game of ten-pin bowling."""


def score(rolls):
    rolls = list(rolls)
    if not all(0 <= r <= 10 for r in rolls):
        raise ValueError("a roll must knock down 0 to 10 pins")
    total = 0
    i = 0
    while i < len(rolls):
        if rolls[i] == 10:
            total += 10 + sum(rolls[i + 1:i + 3])
            i += 1
        elif i + 1 < len(rolls) and rolls[i] + rolls[i + 1] == 10:
            total += 10 + sum(rolls[i + 2:i + 3])
            i += 2
        else:
            total += sum(rolls[i:i + 2])
            i += 2
    return total
