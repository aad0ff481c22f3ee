__version__ = "0.1.0"

def __getattr__(name: str):
    "`hibd.<name>`: any public name of hibd (chapter `17_api`); the first one loads every chapter and registry."
    from pathlib import Path
    if name.startswith('__') or (Path(__file__).parent/f'{name}.py').exists():   # a module not imported yet: the
        raise AttributeError(f"module 'hibd' has no attribute {name!r}")          # import system loads it alone
    from . import api
    return api.lookup(name)

def __dir__() -> list:
    from . import api
    return sorted({*globals(), *api.modules(), *api.public_names()})
