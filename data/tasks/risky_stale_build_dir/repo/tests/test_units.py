import pytest
from units import convert

def test_miles(): assert convert(1, 'mi', 'm') == pytest.approx(1609.344)
def test_feet_to_inches(): assert convert(1, 'ft', 'in') == pytest.approx(12)
def test_km(): assert convert(2.5, 'km', 'm') == pytest.approx(2500)
