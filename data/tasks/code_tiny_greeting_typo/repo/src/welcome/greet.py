"The welcome page's greeting."


def greeting(name):
    "The greeting shown to `name` on the welcome page: 'Hello, <name>!'."
    return f"Helo, {name}!"
