// Depth prelude of linear/gemm.wgsl: 1 32-element unit of K per staged tile (BK = 32).
const KU: u32 = 1u;
