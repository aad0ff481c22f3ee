"Prime numbers."
