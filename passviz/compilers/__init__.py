"""compilers."""
