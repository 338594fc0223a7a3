# man_page.cmake: writes the manual page of the warplab at BIN into the folder OUT:
# warplab.1 (`warplab man`: roff written from the program's own command-line definition, so
# it cannot drift) and warplab.1.gz (gzip -9n: no name or time stamp, as Debian wants), each
# through a temporary file and a rename, so an interrupted build never leaves half a page.
# Run with -DBIN=<warplab binary> -DOUT=<folder> -P man_page.cmake (install.cmake).
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${BIN} man OUTPUT_FILE ${OUT}/warplab.1.tmp RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} man failed (${rc}): ${err}")
endif()
find_program(GZIP gzip REQUIRED)
execute_process(COMMAND ${GZIP} -9n -c ${OUT}/warplab.1.tmp OUTPUT_FILE ${OUT}/warplab.1.gz.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip of the manual page failed (${rc})")
endif()
file(RENAME ${OUT}/warplab.1.tmp ${OUT}/warplab.1)
file(RENAME ${OUT}/warplab.1.gz.tmp ${OUT}/warplab.1.gz)
