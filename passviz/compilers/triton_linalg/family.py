"""triton-linalg: its ``wrap-func-body-with-single-block`` pass."""

from __future__ import annotations

from passviz.compilers.family import Family, lazy

FAMILY = Family(
    name="triton_linalg",
    passes={
        "wrap-func-body-with-single-block": lazy(
            "passviz.compilers.triton_linalg.wrap_func_body", "WrapFuncBodyWithSingleBlock"
        )
    },
)
