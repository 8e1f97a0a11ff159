"""Component tests: the real model and stores inside the test process."""
