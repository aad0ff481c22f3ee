"Invoice amounts and the ledger client."
