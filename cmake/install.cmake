# install.cmake: `cmake --install BUILD --prefix P` and `cpack -G DEB` (run in BUILD).
# Layout: P/bin/warplab, P/share/warplab/{lua,examples,kernels_src,profiles},
# P/share/doc/warplab. NVRTC (libnvrtc.so) comes from the CUDA toolkit, which Debian does
# not package under that name: the package says so instead of depending on it.
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
# Lua is linked in; libedit and the C++ runtime come from Debian. libnvrtc.so.12 or .13
# must come from a CUDA toolkit (or NVIDIA's cuda-nvrtc package).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libedit2, libstdc++6 (>= 12)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Needs NVRTC from a CUDA toolkit (libnvrtc.so) and, for GPU runs, the NVIDIA driver (libcuda.so.1).")
include(CPack)
