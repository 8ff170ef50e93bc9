#!/usr/bin/env bash
# Source on the lent H200 machine: makes NVIDIA's Vulkan driver usable without
# a display, and puts a staging folder (bench/device/stage.sh) on the library path.
# Usage: source bench/device/env.sh [STAGING_FOLDER]
#
# That machine has NVIDIA's driver but no Vulkan loader, and its default ICD
# names libGLX_nvidia.so.0, which cannot create an instance headless; the EGL
# build of the same driver can. So: point the loader at an ICD file naming
# libEGL_nvidia.so.0, and bring the loader (libvulkan.so.1) in the folder.
_wgrt_icd=$(mktemp -d)/nvidia_egl_icd.json
printf '{"file_format_version":"1.0.1","ICD":{"library_path":"libEGL_nvidia.so.0","api_version":"1.3.0"}}\n' >"$_wgrt_icd"
export VK_ICD_FILENAMES="$_wgrt_icd"
if [ -n "${1:-}" ]; then
  export LD_LIBRARY_PATH="$(cd "$1" && pwd):${LD_LIBRARY_PATH:-}"
fi
unset _wgrt_icd
