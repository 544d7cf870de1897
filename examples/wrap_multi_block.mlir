// triton-linalg's WrapFuncBodyWithSingleBlock example: a multi-block tt.func.
tt.func @wrap_multi_block_triton_func(%arg0: i1, %arg1: i32, %arg2: i32) -> i32 {
  cf.cond_br %arg0, ^bb1, ^bb2
^bb1:
  tt.return %arg1: i32
^bb2:
  tt.return %arg2: i32
}
