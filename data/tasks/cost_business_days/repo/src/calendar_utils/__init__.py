"Business-day arithmetic."
