# install.cmake: `cmake --install BUILD --prefix P` and `cpack -G DEB` (run in BUILD).
# Layout: P/bin/warplab (stripped), P/share/warplab/{lua,examples,kernels_src,profiles},
# P/share/doc/warplab/{README.md,copyright,docs}, the bash and zsh completions in their
# system folders, the manual page P/share/man/man1/warplab.1.gz. NVRTC (libnvrtc.so) comes
# from the CUDA toolkit, which Debian does not package: the .deb recommends NVIDIA's
# packages of it instead of depending on them.
install(TARGETS warplab RUNTIME DESTINATION bin)
# Stripped as the .deb is (CPACK_STRIP_FILES below): the RelWithDebInfo binary is ~88 MB
# with its debug information, ~2.5 MB without. -DWARPLAB_INSTALL_STRIP=OFF keeps it.
option(WARPLAB_INSTALL_STRIP "strip bin/warplab when installing" ON)
if(WARPLAB_INSTALL_STRIP AND CMAKE_STRIP)
  install(CODE "
    execute_process(COMMAND \"${CMAKE_STRIP}\" \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin/warplab\"
                    RESULT_VARIABLE rc)
    if(rc)
      message(FATAL_ERROR \"strip of \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin/warplab failed: \${rc}\")
    endif()")
endif()
foreach(dir lua examples kernels_src profiles)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir}/ DESTINATION share/warplab/${dir})
endforeach()
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/warplab)
# The licence in Debian's machine-readable form (the .deb's /usr/share/doc/warplab/copyright):
# warplab's MIT licence (LICENSE) and the notices of the libraries compiled into the binary.
install(FILES ${CMAKE_SOURCE_DIR}/cmake/copyright DESTINATION share/doc/warplab)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION share/doc/warplab/docs)

# The completion scripts, written by the built program from its own CLI definition
# (`warplab completion bash|zsh`, so they cannot drift), installed where bash-completion
# and zsh look for a package's: share/bash-completion/completions/warplab and
# share/zsh/vendor-completions/_warplab.
set(WARPLAB_COMPLETIONS ${CMAKE_BINARY_DIR}/completions)
add_custom_command(
  OUTPUT ${WARPLAB_COMPLETIONS}/warplab ${WARPLAB_COMPLETIONS}/_warplab
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:warplab> -DOUT=${WARPLAB_COMPLETIONS}
          -P ${CMAKE_SOURCE_DIR}/cmake/completions.cmake
  DEPENDS warplab ${CMAKE_SOURCE_DIR}/cmake/completions.cmake
  COMMENT "Writing the bash and zsh completions")
add_custom_target(warplab_completions ALL DEPENDS ${WARPLAB_COMPLETIONS}/warplab ${WARPLAB_COMPLETIONS}/_warplab)
install(FILES ${WARPLAB_COMPLETIONS}/warplab DESTINATION share/bash-completion/completions)
install(FILES ${WARPLAB_COMPLETIONS}/_warplab DESTINATION share/zsh/vendor-completions)

# The manual page, likewise written by the built program (`warplab man`), gzipped as Debian
# keeps man pages: share/man/man1/warplab.1.gz (`man warplab`).
set(WARPLAB_MAN ${CMAKE_BINARY_DIR}/man)
add_custom_command(
  OUTPUT ${WARPLAB_MAN}/warplab.1 ${WARPLAB_MAN}/warplab.1.gz
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:warplab> -DOUT=${WARPLAB_MAN} -P ${CMAKE_SOURCE_DIR}/cmake/man_page.cmake
  DEPENDS warplab ${CMAKE_SOURCE_DIR}/cmake/man_page.cmake
  COMMENT "Writing the manual page")
add_custom_target(warplab_man ALL DEPENDS ${WARPLAB_MAN}/warplab.1 ${WARPLAB_MAN}/warplab.1.gz)
install(FILES ${WARPLAB_MAN}/warplab.1.gz DESTINATION share/man/man1)
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
