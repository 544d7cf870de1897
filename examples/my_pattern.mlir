// Input for examples/my_pattern.py: see README.md, "Debugging your own pattern".
func.func @f(%x: i32) -> i32 {
  %one = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %0 = arith.muli %x, %one : i32
  %1 = arith.addi %c4, %0 : i32
  func.return %1 : i32
}
