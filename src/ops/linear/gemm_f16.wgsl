// Prelude of linear/gemm.wgsl (needs shader-f16): f16 operands in workgroup
// memory and packed f16 multiply-adds into partial sums over one 32-deep K
// tile, which are then added into f32 accumulators.
enable f16;
alias FT = f16;
const SPLIT_ACC: bool = true;
