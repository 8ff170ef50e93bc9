// Depth prelude of linear/gemm.wgsl: 4 32-element units of K per staged tile (BK = 128).
const KU: u32 = 4u;
