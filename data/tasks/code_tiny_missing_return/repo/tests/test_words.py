from textstats.words import word_count


def test_three_words():
    got = word_count("to be free")
    assert got == 3, f"word_count('to be free'): expected 3, got {got}"


def test_empty_text():
    got = word_count("")
    assert got == 0, f"word_count(''): expected 0, got {got}"
