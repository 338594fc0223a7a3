# cpack_project.cmake: read by cpack (CPACK_PROJECT_CONFIG_FILE, install.cmake) before it
# packs. For the .deb: Depends from `dpkg-shlibdeps` on the binary being packed, so the
# package asks for exactly the libc, libstdc++ and libedit versions it was linked against.
# libnvrtc is left out (--ignore-missing-info): no Debian package holds it (install.cmake).
# Without dpkg-shlibdeps the list from install.cmake stands.
if(CPACK_GENERATOR STREQUAL "DEB")
  find_program(WARPLAB_SHLIBDEPS dpkg-shlibdeps)
  if(WARPLAB_SHLIBDEPS AND EXISTS "${CPACK_WARPLAB_BINARY}")
    set(dir "${CPACK_TOPLEVEL_DIRECTORY}/shlibdeps")
    file(WRITE "${dir}/debian/control" "Source: warplab\n\nPackage: warplab\nArchitecture: any\n")
    execute_process(COMMAND ${WARPLAB_SHLIBDEPS} -O --ignore-missing-info -e "${CPACK_WARPLAB_BINARY}"
                    WORKING_DIRECTORY "${dir}" OUTPUT_VARIABLE out ERROR_QUIET)
    if(out MATCHES "shlibs:Depends=([^\n]+)")
      set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CMAKE_MATCH_1}")
    endif()
  endif()
endif()
