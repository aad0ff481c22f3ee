"Word counts for the editor's status bar."


def word_count(text):
    "The number of whitespace-separated words in `text`."
    count = len(text.split())
