// out = 2 * x - y, 256 elements per program: the kernel examples/bisect_demo.py rewrites.
// passviz trace examples/bisect_demo.mlir -p demo-rewrites,canonicalize --passes-from examples/bisect_demo.py -o demo.json
// passviz bisect demo.json --grid 4 --arg x=1000:f32 --arg y=1000:f32 --arg out=1000:f32:zeros --arg n=1000
tt.func public @scale_sub(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %c256 = arith.constant 256 : i32
  %start = arith.muli %pid, %c256 : i32
  %range = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %base = tt.splat %start : i32 -> tensor<256xi32>
  %offsets = arith.addi %base, %range : tensor<256xi32>
  %limit = tt.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %offsets, %limit : tensor<256xi32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %offsets : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  %yv = tt.load %yp, %mask : tensor<256x!tt.ptr<f32>>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offsets : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  %xv = tt.load %xp, %mask : tensor<256x!tt.ptr<f32>>
  %two = arith.constant dense<2.000000e+00> : tensor<256xf32>
  %twice = arith.mulf %xv, %two : tensor<256xf32>
  %result = arith.subf %twice, %yv : tensor<256xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %op = tt.addptr %os, %offsets : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  tt.store %op, %result, %mask : tensor<256x!tt.ptr<f32>>
  tt.return
}
