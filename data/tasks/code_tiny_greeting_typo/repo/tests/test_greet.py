from welcome.greet import greeting


def test_greeting():
    got = greeting("Ada")
    assert got == "Hello, Ada!", f"greeting('Ada'): expected 'Hello, Ada!', got {got!r}"


def test_greeting_other_name():
    got = greeting("Linus")
    assert got == "Hello, Linus!", f"greeting('Linus'): expected 'Hello, Linus!', got {got!r}"
