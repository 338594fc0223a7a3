// compile.cpp: placeholder until the NVRTC core lands.
namespace warplab::rtc {}
