"""mlir."""
