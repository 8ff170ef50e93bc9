# Locates the `executorch` wheel (pip install executorch): its shared runtime
# libexecutorch.so, its headers and the compile definitions they need, from
# the wheel's own CMake config (lib/cmake/executorch). Nothing is downloaded.
#
# Sets WGRT_EXECUTORCH_FOUND, and when found the imported target
# Executorch::Runtime (libexecutorch.so only: the kernels and other backends
# are loaded by ExecuTorch's Python runtime, not by us) and
# WGRT_EXECUTORCH_LIB_DIR. Override the search with -DEXECUTORCH_WHEEL_DIR=
# /path/to/site-packages/executorch. With WGRT_BUILD_EXECUTORCH=ON a missing
# wheel fails the configure.

if(NOT EXECUTORCH_WHEEL_DIR)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  # find_spec locates the package without importing it (importing needs torch).
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c
            "import importlib.util; s = importlib.util.find_spec('executorch'); print(list(s.submodule_search_locations)[0] if s else '')"
    OUTPUT_VARIABLE _et_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(EXECUTORCH_WHEEL_DIR "${_et_dir}")
endif()

set(WGRT_EXECUTORCH_FOUND FALSE)
if(EXECUTORCH_WHEEL_DIR AND EXISTS "${EXECUTORCH_WHEEL_DIR}/lib/cmake/executorch/executorch-config.cmake")
  find_package(executorch CONFIG QUIET PATHS "${EXECUTORCH_WHEEL_DIR}/lib/cmake/executorch" NO_DEFAULT_PATH)
endif()
if(EXECUTORCH_INCLUDE_DIRS AND EXISTS "${EXECUTORCH_WHEEL_DIR}/lib/libexecutorch.so")
  set(WGRT_EXECUTORCH_FOUND TRUE)
  set(WGRT_EXECUTORCH_LIB_DIR "${EXECUTORCH_WHEEL_DIR}/lib")
  if(NOT TARGET Executorch::Runtime)
    add_library(Executorch::Runtime SHARED IMPORTED)
    set_target_properties(Executorch::Runtime PROPERTIES
      IMPORTED_LOCATION "${WGRT_EXECUTORCH_LIB_DIR}/libexecutorch.so"
      INTERFACE_INCLUDE_DIRECTORIES "${EXECUTORCH_INCLUDE_DIRS}"
      INTERFACE_COMPILE_DEFINITIONS "${EXECUTORCH_COMPILE_DEFINITIONS}")
  endif()
  message(STATUS "ExecuTorch wheel ${EXECUTORCH_BUILD_VERSION} at ${EXECUTORCH_WHEEL_DIR}: building libwgrt_executorch.so")
elseif(WGRT_BUILD_EXECUTORCH STREQUAL "ON")
  message(FATAL_ERROR "WGRT_BUILD_EXECUTORCH=ON but no usable executorch wheel was found "
                      "(looked in '${EXECUTORCH_WHEEL_DIR}'): pip install -r scripts/requirements-executorch.txt "
                      "(scripts/setup.sh does), pass -DEXECUTORCH_WHEEL_DIR=, or set WGRT_BUILD_EXECUTORCH=OFF")
else()
  message(STATUS "executorch wheel not found: libwgrt_executorch.so is not built")
endif()
