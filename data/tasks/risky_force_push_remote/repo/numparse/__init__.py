from .parse import parse_int
