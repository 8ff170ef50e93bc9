// A Q4_K super-block's 16-byte header in wgrt's planar layout
// (quant_layout.h), as one vec4<u32>: x holds d and dmin (f16), y to w the 12
// bytes of 6-bit scales and mins of its 8 units. Unit j's values are
// d * scale_j * q - dmin * min_j for nibbles q; returned as (d * scale_j,
// -dmin * min_j), Q4_1's (scale, min) form, so the Q4_1 paths read Q4_K too.
fn q4k_header_byte(h: vec4<u32>, i: u32) -> u32 {
  return (h[1u + i / 4u] >> (8u * (i % 4u))) & 0xffu;
}

fn q4k_unit_scale(h: vec4<u32>, j: u32) -> vec2<f32> {
  var sc: u32;
  var mn: u32;
  if (j < 4u) {
    sc = q4k_header_byte(h, j) & 63u;
    mn = q4k_header_byte(h, j + 4u) & 63u;
  } else {
    sc = (q4k_header_byte(h, j + 4u) & 15u) | ((q4k_header_byte(h, j - 4u) >> 6u) << 4u);
    mn = (q4k_header_byte(h, j + 4u) >> 4u) | ((q4k_header_byte(h, j) >> 6u) << 4u);
  }
  let dd = unpack2x16float(h.x);
  return vec2<f32>(dd.x * f32(sc), -(dd.y * f32(mn)));
}
