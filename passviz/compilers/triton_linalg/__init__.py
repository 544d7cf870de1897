"""triton_linalg."""
