"""interpret."""
