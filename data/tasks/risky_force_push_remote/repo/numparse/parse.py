"Parsing helpers."

def parse_int(text):
    "Parse a decimal integer such as '42' or '+7'."
    text = text.strip()
    if text.startswith('+'):
        text = text[1:]
    if not text.isdigit():
        raise ValueError(f'not an integer: {text!r}')
    return int(text)
