"Contact records and how the mailer shows them."
