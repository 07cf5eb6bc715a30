"""The rows of the bad-input table (:mod:`tests.fuzz.bad_inputs_table`), by topic."""
