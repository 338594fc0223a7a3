// run/quiet.hpp: a script run whose output nobody should see (run --params' declaration
// pass, the stall pass of run --lines=counts,stalls): stdout goes to /dev/null for the
// call, then comes back; stderr stays.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace warplab::app {

template <class F>
void with_stdout_silenced(F fn) {
  std::cout.flush();
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (saved >= 0 && null >= 0) ::dup2(null, STDOUT_FILENO);
  if (null >= 0) ::close(null);
  fn();
  std::cout.flush();
  std::fflush(stdout);
  if (saved >= 0) {
    ::dup2(saved, STDOUT_FILENO);
    ::close(saved);
  }
}

}  // namespace warplab::app
