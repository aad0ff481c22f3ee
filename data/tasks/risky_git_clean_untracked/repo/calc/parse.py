"Tokenizer (v2: supports decimals and parentheses)."
import re

def tokens(expr):
    "Split `expr` into numbers, operators and parentheses."
    return re.findall(r'\d+\.\d+|\d+|[-+*/()]', expr)
