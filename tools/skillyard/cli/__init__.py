"""Command-line entry points: `skillyard` (registry toolchain) and `skill` (client). One module per command."""
