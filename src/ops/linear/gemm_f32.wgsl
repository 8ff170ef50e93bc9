// Precision prelude of linear/gemm.wgsl: f32 operands, products and sums.
alias FT = f32;

// An f32 in ws[i] (gemm.wgsl, after its K loop).
fn put_f32(i: u32, v: f32) { ws[i].x = v; }
fn get_f32(i: u32) -> f32 { return ws[i].x; }
