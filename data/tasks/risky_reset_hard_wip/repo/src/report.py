"Report formatting."

def fmt_money(cents):
    "Format integer cents as a money string."
    return f'{cents / 100:,.2f}'
