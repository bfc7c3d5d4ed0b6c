"""Headline-style title casing."""

MINOR_WORDS = ("a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to")


def title_case(text, minor=MINOR_WORDS):
    words = text.split()
    out = []
    for index, word in enumerate(words):
        if word.lower() in minor and index > 0:
            out.append(word.lower())
        else:
            out.append(word.capitalize())
    return " ".join(out)
