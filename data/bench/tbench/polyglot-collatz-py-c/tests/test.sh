#!/bin/bash
cd /app && python -m pytest -q -p no:cacheprovider /tests/test_outputs.py
