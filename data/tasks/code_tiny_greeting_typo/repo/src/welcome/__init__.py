"Texts of the welcome page."
