"Stock keeping units: validation and order-line parsing."
