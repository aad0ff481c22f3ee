"Nightly batch jobs."
