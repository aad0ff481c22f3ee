"Check-in desk rules."
