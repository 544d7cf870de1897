"""triton_shared."""
