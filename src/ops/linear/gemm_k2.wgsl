// Depth prelude of linear/gemm.wgsl: 2 32-element units of K per staged tile (BK = 64).
const KU: u32 = 2u;
