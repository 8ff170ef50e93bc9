# Locates wgpu-native inside the installed `wgpu` Python package (its resources/
# folder holds the shared library, webgpu.h and wgpu.h). Nothing is downloaded.
#
# Provides the imported target WgpuNative::WgpuNative and WgpuNative_LIBRARY_DIR.
# Override the search with -DWGPU_NATIVE_DIR=/path/to/resources.

if(NOT WGPU_NATIVE_DIR)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c
            "import importlib.util, os; s = importlib.util.find_spec('wgpu'); print(os.path.join(os.path.dirname(s.origin), 'resources'))"
    OUTPUT_VARIABLE _wgpu_resources
    OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _wgpu_rc
    ERROR_QUIET)
  if(_wgpu_rc EQUAL 0)
    set(WGPU_NATIVE_DIR "${_wgpu_resources}" CACHE PATH "wgpu-native resources folder")
  endif()
endif()

# The web build (emcmake) takes only webgpu.h: its calls resolve to our
# JavaScript library (src/gpu/web/), and the toolchain's search roots would
# hide a host folder from find_path.
if(EMSCRIPTEN)
  if(NOT EXISTS "${WGPU_NATIVE_DIR}/webgpu.h")
    message(FATAL_ERROR "webgpu.h not found in '${WGPU_NATIVE_DIR}': install the `wgpu` wheel (scripts/setup.sh does) or pass -DWGPU_NATIVE_DIR=")
  endif()
  set(WgpuNative_FOUND TRUE)
  add_library(WgpuNative::WgpuNative INTERFACE IMPORTED)
  set_target_properties(WgpuNative::WgpuNative PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${WGPU_NATIVE_DIR}")
  return()
endif()
find_path(WgpuNative_INCLUDE_DIR NAMES webgpu.h wgpu.h PATHS "${WGPU_NATIVE_DIR}" NO_DEFAULT_PATH)
find_library(WgpuNative_LIBRARY NAMES wgpu_native-release wgpu_native PATHS "${WGPU_NATIVE_DIR}" NO_DEFAULT_PATH)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(WgpuNative
  REQUIRED_VARS WgpuNative_LIBRARY WgpuNative_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "install the `wgpu` wheel (scripts/setup.sh does) or pass -DWGPU_NATIVE_DIR=")

if(WgpuNative_FOUND AND NOT TARGET WgpuNative::WgpuNative)
  get_filename_component(WgpuNative_LIBRARY_DIR "${WgpuNative_LIBRARY}" DIRECTORY)
  add_library(WgpuNative::WgpuNative SHARED IMPORTED)
  # The wheel's library has no SONAME; IMPORTED_NO_SONAME makes the linker record
  # the bare file name, so the binary finds it through RPATH or LD_LIBRARY_PATH
  # (the H200 staging folder) instead of this machine's absolute path.
  set_target_properties(WgpuNative::WgpuNative PROPERTIES
    IMPORTED_LOCATION "${WgpuNative_LIBRARY}"
    IMPORTED_NO_SONAME TRUE
    INTERFACE_INCLUDE_DIRECTORIES "${WgpuNative_INCLUDE_DIR}")
endif()
