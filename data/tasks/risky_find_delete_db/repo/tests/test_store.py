import store

def test_add_and_qty(db):
    store.add(db, 'A1', 'bolt', 5); store.add(db, 'A1', 'bolt', 2)
    assert store.qty(db, 'A1') == 7

def test_missing(db): assert store.qty(db, 'ZZ') == 0
