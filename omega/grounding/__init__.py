"""The grounded-generation contract: sentence-level PASS/FAIL against cited Atomic Facts, refusal, audit."""
