# Sourced by scripts/fuzz.sh and scripts/fuzz_campaign.sh: fills a fuzz
# target's corpus directory with its seeds, the committed ones in
# tests/fuzz/seeds/<target>/ and the fixture files that are valid inputs.
# Usage: fuzz_seed_corpus TARGET DIR (run from the repository root).
fuzz_seed_corpus() {
  local target=$1 dir=$2 fixtures=tests/fixtures f
  mkdir -p "$dir"
  local files=()
  case "$target" in
    fuzz_gguf) files=("$fixtures"/gguf/*.gguf "$fixtures"/llama/*.gguf) ;;
    fuzz_pte) files=("$fixtures"/pte/*.pte "$fixtures"/llama/*.pte) ;;
    fuzz_ptd) files=("$fixtures"/pte/*.ptd) ;;
  esac
  [ -d "tests/fuzz/seeds/$target" ] && files+=(tests/fuzz/seeds/"$target"/*)
  for f in "${files[@]}"; do [ -f "$f" ] && cp -n "$f" "$dir/" 2>/dev/null; done
  return 0
}
