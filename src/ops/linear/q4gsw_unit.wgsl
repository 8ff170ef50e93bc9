// decode_unit for et_vk.linear_q4gsw's weights, imported by linear/gemm.wgsl ({decoder}):
// rows of K/8 words (word j holds k = 8j..8j+7, value 8j+i in bits 4i..4i+3,
// +8 offset), w[n, k] = (nibble - 8) * scales[k / GROUP_SIZE, n] with scale
// rows SCALES_STRIDE apart. A 32-element unit is 4 words; GROUP_SIZE % 8 == 0,
// so a word never straddles a group. A weight above the binding limit is
// bound in runs of rows: the scales count from linear_io.wgsl's out_col0.
override GROUP_SIZE: u32 = 32;
override SCALES_STRIDE: u32 = 1;

alias Unit = array<vec4<f32>, 8>;  // elements 4k..4k+3 in [k]

@group(0) @binding(9) var<storage, read> scales: array<f32>;  // after gemm.wgsl's 0-8

fn decode_unit(row_base: u32, unit: u32, v: ptr<function, Unit>) {
  let n = row_base / params.row_words;
  for (var j = 0u; j < 4u; j++) {
    let word = 4u * unit + j;
    let q = vec4<u32>(w[row_base + word]);
    let s = scales[(word * 8u / GROUP_SIZE) * SCALES_STRIDE + params.out_col0 + n];  // n: a row of this run
    (*v)[2u * j] = (vec4<f32>((q >> vec4<u32>(0u, 4u, 8u, 12u)) & vec4<u32>(15u)) - 8.0) * s;
    (*v)[2u * j + 1u] = (vec4<f32>((q >> vec4<u32>(16u, 20u, 24u, 28u)) & vec4<u32>(15u)) - 8.0) * s;
  }
}

// gemm.wgsl's fetch/decode pair: these weights are decoded when fetched.
alias UnitWords = Unit;
fn fetch_unit(row_base: u32, unit: u32) -> UnitWords {
  var v: Unit;
  decode_unit(row_base, unit, &v);
  return v;
}
fn unit_from(r: UnitWords, unit: u32) -> Unit { return r; }
