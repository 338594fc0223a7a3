# install.cmake: `cmake --install BUILD --prefix P` and `cpack -G DEB` (run in BUILD).
# Layout: P/bin/warplab, P/share/warplab/{lua,examples,kernels_src,profiles},
# P/share/doc/warplab. NVRTC (libnvrtc.so) comes from the CUDA toolkit, which Debian does
# not package: the .deb recommends NVIDIA's packages of it instead of depending on them.
install(TARGETS warplab RUNTIME DESTINATION bin)
foreach(dir lua examples kernels_src profiles)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir}/ DESTINATION share/warplab/${dir})
endforeach()
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/warplab)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION share/doc/warplab/docs)
# libnvrtc is found through the loader's paths, or the toolkit's folder recorded here.
set_target_properties(warplab PROPERTIES INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")

set(CPACK_PACKAGE_NAME warplab)
set(CPACK_PACKAGE_VENDOR "warplab")
set(CPACK_PACKAGE_CONTACT "warplab developers <warplab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "CUDA playground: NVRTC, the driver API and Lua experiments on warps, reductions and synchronization")
set(CPACK_PACKAGE_INSTALL_DIRECTORY warplab)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Lua is linked in; the rest comes from Debian. cpack_project.cmake asks dpkg-shlibdeps
# for the binary being packed; where it is missing, this list (its answer on Debian 12).
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_SOURCE_DIR}/cmake/cpack_project.cmake)
set(CPACK_WARPLAB_BINARY ${CMAKE_BINARY_DIR}/warplab)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6 (>= 2.34), libedit2 (>= 2.11-20080614-0), libgcc-s1 (>= 3.0), libstdc++6 (>= 11)")
# libnvrtc.so.N is not in Debian: NVIDIA's CUDA repository has it (cuda-nvrtc-N-M), and the
# headers kernels include (cooperative_groups.h, CCCL) in cuda-cudart-dev-N-M and
# cuda-cccl-N-M. Recommended, not required, so a toolkit installed another way (the
# runfile, a tarball) is enough; scripts/deb-check installs the package on a clean Debian.
set(_cuda "${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cuda-nvrtc-${_cuda}, cuda-cudart-dev-${_cuda}, cuda-cccl-${_cuda}")
# The RelWithDebInfo binary is ~80 MB with its debug information, ~2.5 MB without.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Needs NVRTC ${CUDAToolkit_VERSION_MAJOR} from a CUDA toolkit (libnvrtc.so.${CUDAToolkit_VERSION_MAJOR}, e.g. NVIDIA's cuda-nvrtc-${_cuda}) and, for GPU runs, the NVIDIA driver (libcuda.so.1).")
include(CPack)
