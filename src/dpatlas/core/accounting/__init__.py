"""Privacy accounting: spend records, budgets (in memory or a SQLite ledger), composition."""
