// aten.grid_sampler_2d on contiguous f32: x [N, C, H, W], grid [N, OH, OW, 2]
// holding (x, y) in [-1, 1], out [N, C, OH, OW]; one output per invocation.
// MODE 0 bilinear, 1 nearest (round half to even, as torch's nearbyint);
// PADDING 0 zeros, 1 border, 2 reflection; ALIGN_CORNERS maps -1/1 to the
// corner pixels' centres (1) or to the image's outer edges (0).
//! import common/prelude.wgsl

override WG: u32 = 64;  // the C++'s kWorkgroup passes it
override MODE: u32 = 0u;
override PADDING: u32 = 0u;
override ALIGN_CORNERS: u32 = 0u;

struct Params {
  count: u32, c: u32, h: u32, w: u32,
  oh: u32, ow: u32, pad0: u32, pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> grid: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

// Reflects v into [lo, hi] (v's distance past an end folds back, repeatedly).
fn reflect_into(v: f32, lo: f32, hi: f32) -> f32 {
  if (hi <= lo) { return lo; }
  let span = hi - lo;
  let d = abs(v - lo);
  let flips = floor(d / span);
  let extra = d - flips * span;
  return select(hi - extra, lo + extra, u32(flips) % 2u == 0u);
}

// The pixel coordinate of normalized g along a size-n axis, padding applied.
fn unnormalize(g: f32, n: u32) -> f32 {
  let size = f32(n);
  var c = select(((g + 1.0) * size - 1.0) * 0.5, (g + 1.0) * 0.5 * (size - 1.0), ALIGN_CORNERS != 0u);
  if (PADDING == 2u) {
    if (ALIGN_CORNERS != 0u) { c = reflect_into(c, 0.0, size - 1.0); }
    else { c = reflect_into(c, -0.5, size - 0.5); }
  }
  if (PADDING != 0u) { c = clamp(c, 0.0, size - 1.0); }
  return c;
}

// x at (iy, ix) of plane `base`, zero outside the image.
fn tap(base: u32, iy: i32, ix: i32) -> f32 {
  if (iy < 0 || ix < 0 || iy >= i32(p.h) || ix >= i32(p.w)) { return 0.0; }
  return x[base + u32(iy) * p.w + u32(ix)];
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i >= p.count) { return; }
  let pix = i % (p.oh * p.ow);
  let plane = i / (p.oh * p.ow);
  let n = plane / p.c;
  let g = 2u * (n * p.oh * p.ow + pix);
  let sx = unnormalize(grid[g], p.w);
  let sy = unnormalize(grid[g + 1u], p.h);
  let base = plane * p.h * p.w;
  if (MODE == 1u) {
    out[i] = tap(base, i32(round(sy)), i32(round(sx)));
    return;
  }
  let x0 = floor(sx);
  let y0 = floor(sy);
  let lx = sx - x0;
  let ly = sy - y0;
  let ix = i32(x0);
  let iy = i32(y0);
  let top = tap(base, iy, ix) * (1.0 - lx) + tap(base, iy, ix + 1) * lx;
  let bottom = tap(base, iy + 1, ix) * (1.0 - lx) + tap(base, iy + 1, ix + 1) * lx;
  out[i] = top * (1.0 - ly) + bottom * ly;
}
