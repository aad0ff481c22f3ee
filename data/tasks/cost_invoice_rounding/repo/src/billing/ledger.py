"Posting invoices to the ledger service."
from billing.money import invoice_total


def post_invoices(client, invoices, batch_size=10):
    "Post each invoice's total (cents) in batches of `batch_size`; returns the ledger's balance."
    batch = []
    for inv_id, lines in invoices:
        batch.append({"id": inv_id, "cents": invoice_total(lines)})
        if len(batch) == batch_size:
            client.post(batch)
            batch = []
    if batch:
        client.post(batch)
    return client.balance()
