"""The daemon's lifecycle: instance locks, start-up to shutdown, `ragd reset`."""
