# Sourced by scripts/setup.sh and scripts/test.sh: compiles through ccache
# when it is installed (setup.sh installs it), with paths taken relative to
# the checkout, so a fresh clone (CI's) reuses the objects of an earlier
# build of the same sources in any other folder of this machine.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
fi
