// Tile prelude of linear/gemm.wgsl: 32 x 64 outputs per workgroup, 4 x 4 per thread
// (128 threads: twice the workgroups of 64 x 64 on matrices too small to fill the GPU).
const BM: u32 = 32u;
const BN: u32 = 64u;
const TM: u32 = 4u;
const TN: u32 = 4u;
