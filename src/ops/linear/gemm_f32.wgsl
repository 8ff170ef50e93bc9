// Prelude of linear/gemm.wgsl: f32 operands, products and sums.
alias FT = f32;
const SPLIT_ACC: bool = false;
