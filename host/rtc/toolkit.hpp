// toolkit.hpp: where the headers NVRTC needs live, found at run time: the CUDA include
// directories (for cooperative_groups.h, cuda_fp16.h, <cuda/std/...>) and warplab's own
// kernels_src (for <warplab/...>). Needs the file system only.
#pragma once
#include <filesystem>
#include <vector>

namespace warplab::rtc {

// The CUDA include dir and, when it exists, its cccl/ subdir (CUDA 13 keeps cuda/std,
// cub and thrust there; NVRTC needs both for cooperative_groups.h). Search order:
// $CUDA_HOME/include, $CUDA_PATH/include, the include dir next to the libnvrtc this
// process loaded, the build's WARPLAB_CUDA_INCLUDE, /usr/local/cuda/include. Empty when
// none holds cooperative_groups.h.
std::vector<std::filesystem::path> cuda_include_dirs();

// kernels_src: $WARPLAB_KERNELS_DIR, else ../kernels_src next to the running binary's
// directory (a build dir inside the tree), else the build's WARPLAB_KERNELS_DIR. Empty
// when none exists.
std::filesystem::path kernels_dir();

// kernels_dir()/include, which holds <warplab/...>; empty when absent.
std::filesystem::path warplab_include_dir();

}  // namespace warplab::rtc
