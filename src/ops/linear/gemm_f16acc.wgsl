// Prelude of linear/gemm.wgsl (needs shader-f16): f16 operands, products and
// sums over the whole K (the seeds' f16-accumulate variant; an opt-in, its
// error grows with K and the sums must stay below 65504).
enable f16;
alias FT = f16;
const SPLIT_ACC: bool = false;
