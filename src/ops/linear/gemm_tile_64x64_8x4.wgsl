// Tile prelude of linear/gemm.wgsl: 64 x 64 outputs per workgroup, 8 x 4 per thread (128 threads).
const BM: u32 = 64u;
const BN: u32 = 64u;
const TM: u32 = 8u;
const TN: u32 = 4u;
