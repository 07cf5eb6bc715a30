"""The mechanisms: each validates its inputs, debits the budget, then draws exact noise."""
