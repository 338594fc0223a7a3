# completions.cmake: writes the bash and zsh completion scripts of the warplab at BIN into
# the folder OUT (`warplab` for bash, `_warplab` for zsh), each through a temporary file
# and a rename, so an interrupted build never leaves half a script behind.
# Run with -DBIN=<warplab binary> -DOUT=<folder> -P completions.cmake (install.cmake).
file(MAKE_DIRECTORY ${OUT})
foreach(shell_file "bash=warplab" "zsh=_warplab")
  string(REPLACE "=" ";" pair "${shell_file}")
  list(GET pair 0 shell)
  list(GET pair 1 name)
  execute_process(COMMAND ${BIN} completion ${shell} OUTPUT_FILE ${OUT}/${name}.tmp RESULT_VARIABLE rc
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} completion ${shell} failed (${rc}): ${err}")
  endif()
  file(RENAME ${OUT}/${name}.tmp ${OUT}/${name})
endforeach()
