// Tile prelude of linear/gemm.wgsl: 128 x 64 outputs per workgroup, 8 x 4 per thread
// (each decoded weight unit serves 128 rows of x).
const BM: u32 = 128u;
const BN: u32 = 64u;
const TM: u32 = 8u;
const TN: u32 = 4u;
