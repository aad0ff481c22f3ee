import importlib
import subprocess
import sys


def test_each_module_imports_on_its_own():
    # a fresh interpreter per module, so import order cannot hide a cycle
    for mod in ["shop.pricing", "shop.models", "shop"]:
        r = subprocess.run([sys.executable, "-c", f"import {mod}"], capture_output=True, text=True,
                           env={"PYTHONPATH": "src"})
        assert r.returncode == 0, r.stderr


def test_public_api():
    shop = importlib.import_module("shop")
    assert set(shop.__all__) == {"Item", "cart_total", "price_with_tax"}
