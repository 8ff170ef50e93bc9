// Tile prelude of linear/gemm.wgsl: 64 x 128 outputs per workgroup, 8 x 8 per thread.
const BM: u32 = 64u;
const BN: u32 = 128u;
const TM: u32 = 8u;
const TN: u32 = 8u;
