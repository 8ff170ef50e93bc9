// Elementwise ops over mixed element types with numpy broadcasting:
// comparisons, logic, bitwise, where, pow, minimum, div with rounding, the
// arithmetic ops on integers (add, sub, mul, true div), and dtype conversion.
// Tensors are read and written as 32-bit words: TYPE codes 0 f32, 1 i32
// (also i64 tensors, which live on the GPU as i32), 2 bool (one byte per
// element, four to a word), 3 the scalar in Params (for .Scalar overloads),
// 4 f16 (two to a word, through WGSL's core pack/unpack builtins: no
// shader-f16 needed). Each invocation writes four consecutive output
// elements, so a bool or f16 output is written whole words at a time.
// INT_MATH: every operand is an integer or bool: compare and combine as i32
// (exact, wrapping like torch's int32), not f32.
// add/sub carry their alpha in the scalar slot (scalar_f, scalar_i).
//! import common/prelude.wgsl

override WG: u32 = 256u;
override OP: u32 = 0u;
override A_TYPE: u32 = 0u;
override B_TYPE: u32 = 0u;
override C_TYPE: u32 = 0u;
override OUT_TYPE: u32 = 0u;
override INT_MATH: u32 = 0u;

struct Params {
  count: u32, rank: u32, scalar_f: f32, scalar_i: i32,
  out_dims: array<vec4<u32>, 2>,
  a_strides: array<vec4<u32>, 2>,
  b_strides: array<vec4<u32>, 2>,
  c_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read> c: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@group(0) @binding(4) var<uniform> p: Params;

struct V { f: f32, i: i32 }

fn at(v: array<vec4<u32>, 2>, i: u32) -> u32 { return v[i / 4u][i % 4u]; }

fn word(which: u32, w: u32) -> u32 {
  switch which {
    case 0u: { return a[w]; }
    case 1u: { return b[w]; }
    default: { return c[w]; }
  }
}

fn load(which: u32, ty: u32, idx: u32) -> V {
  if (ty == 3u) { return V(p.scalar_f, p.scalar_i); }
  if (ty == 2u) {
    let byte = (word(which, idx / 4u) >> ((idx % 4u) * 8u)) & 0xffu;
    let i = select(0, 1, byte != 0u);
    return V(f32(i), i);
  }
  if (ty == 4u) {
    let f = unpack2x16float(word(which, idx / 2u))[idx % 2u];
    return V(f, i32(f));
  }
  let w = word(which, idx);
  if (ty == 0u) {
    let f = bitcast<f32>(w);
    return V(f, i32(f));
  }
  let i = bitcast<i32>(w);
  return V(f32(i), i);
}

fn from_bool(v: bool) -> V { return V(select(0.0, 1.0, v), select(0, 1, v)); }
fn from_f32(f: f32) -> V { return V(f, i32(f)); }
fn truthy(v: V) -> bool { return select(v.f != 0.0, v.i != 0, INT_MATH != 0u); }

fn compare(x: V, y: V) -> bool {
  if (INT_MATH != 0u) {
    switch OP {
      case 0u: { return x.i == y.i; }
      case 1u: { return x.i != y.i; }
      case 2u: { return x.i < y.i; }
      case 3u: { return x.i <= y.i; }
      case 4u: { return x.i > y.i; }
      default: { return x.i >= y.i; }
    }
  }
  switch OP {
    case 0u: { return x.f == y.f; }
    case 1u: { return x.f != y.f; }
    case 2u: { return x.f < y.f; }
    case 3u: { return x.f <= y.f; }
    case 4u: { return x.f > y.f; }
    default: { return x.f >= y.f; }
  }
}

// PyTorch's pow on reals: negative bases only to integral exponents.
fn real_pow(x: f32, y: f32) -> f32 {
  if (y == 0.0) { return 1.0; }
  if (x == 0.0) { return select(0.0, f32_bits(0x7f800000u), y < 0.0); }
  let r = pow(abs(x), y);
  if (x > 0.0) { return r; }
  if (floor(y) != y) { return f32_bits(0x7fc00000u); }
  return select(r, -r, abs(y % 2.0) == 1.0);
}

fn from_i32(i: i32) -> V { return V(f32(i), i); }

// Integer power by squaring; a negative exponent gives what truncating
// 1 / x^-e gives (torch refuses it on the CPU).
fn int_pow(x: i32, e: i32) -> i32 {
  if (e < 0) {
    if (x == 1) { return 1; }
    if (x == -1) { return select(1, -1, (e & 1) == 1); }
    return 0;
  }
  var r = 1;
  var b = x;
  var k = e;
  while (k > 0) {
    if ((k & 1) == 1) { r *= b; }
    b *= b;
    k >>= 1u;
  }
  return r;
}

// Floor division of integers (WGSL's `/` truncates toward zero).
fn int_div_floor(x: i32, y: i32) -> i32 {
  let q = x / y;
  if (y != 0 && q * y != x && ((x < 0) != (y < 0))) { return q - 1; }
  return q;
}

fn apply(x: V, y: V, z: V) -> V {
  if (INT_MATH != 0u) {
    switch OP {
      case 13u: { return from_i32(int_pow(x.i, y.i)); }
      case 14u: { return from_i32(min(x.i, y.i)); }
      case 15u: { return from_i32(x.i / y.i); }
      case 16u: { return from_i32(int_div_floor(x.i, y.i)); }
      case 18u: { return from_i32(x.i + p.scalar_i * y.i); }
      case 19u: { return from_i32(x.i - p.scalar_i * y.i); }
      case 20u: { return from_i32(x.i * y.i); }
      default: {}
    }
  }
  switch OP {
    case 0u, 1u, 2u, 3u, 4u, 5u: { return from_bool(compare(x, y)); }
    case 6u: { return from_bool(truthy(x) && truthy(y)); }
    case 7u: { return from_bool(truthy(x) || truthy(y)); }
    case 8u: { return from_bool(!truthy(x)); }
    case 9u: { let i = x.i & y.i; return V(f32(i), i); }
    case 10u: { let i = x.i | y.i; return V(f32(i), i); }
    case 11u: {
      // Booleans negate; integers flip every bit.
      let i = select(~x.i, 1 - x.i, A_TYPE == 2u);
      return V(f32(i), i);
    }
    case 12u: {
      if (truthy(x)) { return y; }
      return z;
    }
    case 13u: { return from_f32(real_pow(x.f, y.f)); }
    case 14u: {
      if (x.f != x.f || y.f != y.f) { return from_f32(x.f + y.f); }  // NaN propagates
      return from_f32(min(x.f, y.f));
    }
    case 15u: { return from_f32(trunc(x.f / y.f)); }
    case 16u: { return from_f32(floor(x.f / y.f)); }
    case 18u: { return from_f32(x.f + p.scalar_f * y.f); }
    case 19u: { return from_f32(x.f - p.scalar_f * y.f); }
    case 20u: { return from_f32(x.f * y.f); }
    case 21u: { return from_f32(x.f / y.f); }
    default: { return x; }  // conversion: encode() writes the output's type
  }
}

fn encode(v: V) -> u32 {
  switch OUT_TYPE {
    case 0u: { return bitcast<u32>(v.f); }
    case 1u: { return bitcast<u32>(v.i); }
    default: { return select(0u, 1u, truthy(v)); }
  }
}

fn value(e: u32) -> V {
  var rest = e;
  var ia = 0u;
  var ib = 0u;
  var ic = 0u;
  for (var d = i32(p.rank) - 1; d >= 0; d--) {
    let n = at(p.out_dims, u32(d));
    let k = rest % n;
    rest /= n;
    ia += k * at(p.a_strides, u32(d));
    ib += k * at(p.b_strides, u32(d));
    ic += k * at(p.c_strides, u32(d));
  }
  return apply(load(0u, A_TYPE, ia), load(1u, B_TYPE, ib), load(2u, C_TYPE, ic));
}

fn element(e: u32) -> u32 { return encode(value(e)); }

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = flat_group(wid, nwg) * WG + lid;
  let e0 = t * 4u;
  if (e0 >= p.count) { return; }
  if (OUT_TYPE == 2u) {
    var packed = 0u;
    for (var j = 0u; j < 4u && e0 + j < p.count; j++) { packed |= element(e0 + j) << (8u * j); }
    out[t] = packed;
  } else if (OUT_TYPE == 4u) {
    var pair = vec2<f32>(0.0, 0.0);
    for (var j = 0u; j < 4u && e0 + j < p.count; j++) {
      pair[j % 2u] = value(e0 + j).f;
      if (j % 2u == 1u || e0 + j + 1u == p.count) {
        out[e0 / 2u + j / 2u] = pack2x16float(pair);
        pair = vec2<f32>(0.0, 0.0);
      }
    }
  } else {
    for (var j = 0u; j < 4u && e0 + j < p.count; j++) { out[e0 + j] = element(e0 + j); }
  }
}
