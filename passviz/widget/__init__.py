"""widget."""
