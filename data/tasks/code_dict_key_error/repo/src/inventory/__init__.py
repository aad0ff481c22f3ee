"Warehouse stock bookkeeping."
