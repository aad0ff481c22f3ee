"Prices with VAT."


def with_vat(net):
    "The gross price of `net`: net plus VAT, rounded to cents."
    rate = 0.2
    return round(net * (1 + rate), 2)
