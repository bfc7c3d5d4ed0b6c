"""Scoring a complete game of ten-pin bowling."""


def _require(condition, message):
    if not condition:
        raise ValueError(message)


def score(rolls):
    rolls = list(rolls)
    _require(all(0 <= r <= 10 for r in rolls), "a roll must knock down 0 to 10 pins")
    total = 0
    i = 0
    for frame in range(10):
        last = frame == 9
        _require(i < len(rolls), "incomplete game")
        if rolls[i] == 10:
            bonus = rolls[i + 1:i + 3]
            _require(len(bonus) == 2, "incomplete game")
            if last:
                _require(bonus[0] == 10 or sum(bonus) <= 10, "bonus balls knock down too many pins")
            total += 10 + sum(bonus)
            i += 3 if last else 1
            continue
        _require(i + 1 < len(rolls), "incomplete game")
        pins = rolls[i] + rolls[i + 1]
        _require(pins <= 10, "a frame cannot knock down more than 10 pins")
        if pins == 10:
            _require(i + 2 < len(rolls), "incomplete game")
            total += 10 + rolls[i + 2]
            i += 3 if last else 2
        else:
            total += pins
            i += 2
    _require(i == len(rolls), "balls after the end of the game")
    return total
