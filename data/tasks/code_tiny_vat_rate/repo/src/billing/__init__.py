"Invoice arithmetic."
