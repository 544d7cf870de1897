"""iree."""
