"How a contact is shown on screen and on a mailing label."


def display_name(person):
    "The name to show: the nickname if one is set, else 'First Last'."
    nick = person.get("nickname")
    if nick.strip():
        return nick.strip()
    return f"{person['first']} {person['last']}"


def mailing_label(person):
    "Three-line postal label: name, street, 'zip city'."
    return "\n".join([display_name(person), person["street"], f"{person['zip']} {person['city']}"])
