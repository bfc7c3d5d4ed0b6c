"""Headline-style title casing."""

MINOR_WORDS = ("a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to")


def _capitalise(word):
    return "-".join(part[:1].upper() + part[1:].lower() for part in word.split("-"))


def title_case(text, minor=MINOR_WORDS):
    words = text.split()
    out = []
    for index, word in enumerate(words):
        is_edge = index == 0 or index == len(words) - 1
        if word.lower() in minor and not is_edge:
            out.append(word.lower())
        else:
            out.append(_capitalise(word))
    return " ".join(out)
