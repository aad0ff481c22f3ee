from contacts.format import display_name, mailing_label

ADA = {"first": "Ada", "last": "Lovelace", "street": "12 St James's Sq", "zip": "SW1Y", "city": "London"}


def test_nickname_is_used():
    assert display_name({**ADA, "nickname": " Countess "}) == "Countess"


def test_blank_nickname_falls_back():
    assert display_name({**ADA, "nickname": "   "}) == "Ada Lovelace"


def test_missing_nickname_falls_back():
    assert display_name(ADA) == "Ada Lovelace"


def test_null_nickname_falls_back():
    # the CRM export writes nickname: null for most contacts
    assert display_name({**ADA, "nickname": None}) == "Ada Lovelace"


def test_mailing_label():
    assert mailing_label({**ADA, "nickname": None}) == "Ada Lovelace\n12 St James's Sq\nSW1Y London"
